# The hume ML backend: serves sealed model predictions to Label Studio (ml_backend/app.py) and
# carries the hume-sync CLI. CPU-only torch keeps the image small.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

WORKDIR /app
RUN pip install --index-url https://download.pytorch.org/whl/cpu "torch==2.13.0"
COPY pyproject.toml README.md ./
COPY scoring ./scoring
COPY label_studio_configs ./label_studio_configs
COPY ml_backend ./ml_backend
COPY hume_sync ./hume_sync
RUN pip install ".[models,labelstudio]"

RUN useradd --create-home --uid 1000 hume && mkdir -p /study && chown hume /study
USER hume
EXPOSE 9090
HEALTHCHECK --interval=30s --timeout=5s --retries=5 CMD ["python", "-m", "ml_backend.healthcheck"]
CMD ["hume-ml-backend", "--study-dir", "/study", "--bind", "0.0.0.0:9090"]
