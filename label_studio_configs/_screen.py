"""What every HUME labelling screen shows above its task, and the CSS that fits it on a laptop.

Label Studio 1.23 Community lets a config style its screen only through ``<Style>`` (plain CSS,
applied to the whole page while the config is shown) and the tags' own attributes, so each
template starts with :data:`SCREEN_XML`:

- **where the annotator is**: ``$hume_position`` ("Task 3 of 9"), a field of the task data
  written at setup from the subset's presentation order (``TaskInterface.ls_task_data``). Label
  Studio's own "1 of 1" in the bottom bar counts the annotations of a task, not tasks. A task
  imported before this field existed shows an empty line, nothing wrong;
- **when to skip**: Skip stores a cancelled annotation that counts as no answer, so the bar says
  to skip only a task that cannot be judged, and Skip is styled as a quiet text button beside the
  filled Submit;
- **room for the task**: below 1600 px (a laptop) the side panels (region details, regions,
  history) are hidden: HUME's controls are whole-task choices and lists, which have no regions,
  so at 1366 px the panels only took 320 px from the texts; wider screens keep them (History).
  The List/Ranker cards are made compact (the item id line, which repeats the card's number,
  is hidden).

CSS in a ``<Style>`` must stay valid XML text: no ``<``, ``>`` or ``&`` (no child combinators).
"""

from __future__ import annotations

from .errors import InvalidContentError

#: The task data field that says where the task stands in its subset ("Task 3 of 9").
POSITION_FIELD = "hume_position"


def position_text(position: tuple[int, int]) -> str:
    """ "Task n of N" for the n-th task (1-based) of a subset of N; a one-line error otherwise."""
    try:
        n, total = position
    except (TypeError, ValueError):
        raise InvalidContentError(f"position must be (n, N), got {position!r}") from None
    numbers = (n, total)
    if any(isinstance(x, bool) or not isinstance(x, int) for x in numbers) or not 1 <= n <= total:
        raise InvalidContentError(f"position must be (n, N) with 1 <= n <= N, got {position!r}")
    return f"Task {n} of {total}"


SKIP_GUIDANCE = (
    "Skip only a task you cannot judge at all (e.g. a text you cannot read): a skipped task "
    "counts as no answer. If you are unsure, give your best answer and Submit."
)

SCREEN_CSS = """
    @media (max-width: 1599px) {
      .lsf-sidepanels { padding-left: 0 !important; padding-right: 0 !important; }
      .lsf-sidepanels__wrapper { display: none !important; }
    }
    .lsf-main-view__annotation { padding: 8px 14px !important; }
    .hume-bar { display: flex; flex-wrap: wrap; align-items: baseline; column-gap: 16px;
      margin: 0 0 6px; padding: 4px 10px; border-radius: 4px; background: #eef2f7; }
    .hume-bar [class*=typography] { margin: 0 !important; font-size: 14px !important;
      line-height: 1.4 !important; }
    .hume-bar .hume-position [class*=typography] { font-weight: 700 !important; }
    .hume-bar .hume-skip [class*=typography] { font-weight: 400 !important; color: #4b5563; }
    .hume-instructions [class*=typography] { font-size: 15px !important;
      line-height: 1.4 !important; font-weight: 500 !important; margin: 2px 0 8px !important; }
    .hume-title [class*=typography] { font-size: 14px !important; margin: 8px 0 2px !important; }
    .lsf-choice__item label span { unicode-bidi: plaintext; }
    button[data-testid=bottombar-skip-button] { border-color: transparent !important;
      background: transparent !important; box-shadow: none !important;
      color: #4b5563 !important; font-weight: 400 !important; text-decoration: underline;
      min-width: 0 !important; width: auto !important; flex: 0 0 auto !important;
      padding: 0 10px !important; }
    .htx-ranker-item { padding: 3px 6px !important; margin-top: 3px !important;
      font-size: 13px !important; line-height: 1.35 !important; }
    .htx-ranker-item { flex-direction: row !important; align-items: baseline; column-gap: 6px; }
    .htx-ranker-item p { flex: 1 1 auto; min-width: 0; }
    .htx-ranker-item h5 { font-size: 12px !important; line-height: 1.2 !important;
      color: #6b7280; margin: 0 !important; }
    .htx-ranker-column h3 { font-size: 15px !important; line-height: 1.3 !important; }
    .htx-ranker-item p + p { display: none !important; }
    .htx-ranker-item button { display: none !important; }
"""

SCREEN_XML = f"""<Style>{SCREEN_CSS}  </Style>
  <View className="hume-bar">
    <View className="hume-position"><Header value="${POSITION_FIELD}" size="6"/></View>
    <View className="hume-skip"><Header value="{SKIP_GUIDANCE}" size="6"/></View>
  </View>"""
