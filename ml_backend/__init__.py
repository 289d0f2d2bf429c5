"""The model side of hume: embedding models, LLM annotators and the Label Studio ML backend.

Embedding models answer each task exactly as mteb does (:mod:`ml_backend.procedures`, on
embeddings cached once per distinct text); LLM annotators (:mod:`ml_backend.llm`) get what human
annotators get. Its modules are imported by their own names; the package itself exports nothing.
"""

__all__: list[str] = []
