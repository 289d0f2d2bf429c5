"""The annotator's labelling screen of every task type, English and Arabic, on a laptop
(1366×768) and a desktop (1920×1080), in a real browser.

A study with an English and an Arabic subset of each type (``tests/_screens_data.py``;
clustering: 30 texts in 5 topics, HUME's size) is set up on one annotator's own Label Studio.
The annotator logs in through the login form and opens each project's labelling stream, as she
would; each screen is saved under ``test-artifacts/annotator-screens/`` (or
``$HUME_TEST_ARTIFACTS``) as ``<type>-<language>-<width>.png`` and measured in the page:

- no horizontal overflow: the page is no wider than the window and no element of the task
  sticks out of it;
- clustering at 1366×768: every one of the 30 texts is reachable within
  :data:`MAX_SCROLL_SCREENS` window heights of scrolling (the bottom of the last text, above the
  unsorted-texts note and the bottom bar, once scrolled that far);
- Arabic: the choices' right edge within :data:`MAX_RTL_GAP_PX` of the text's right edge (the
  choices stand beside the right-to-left text, not at the far left);
- "Task 1 of N" (N: the subset's tasks) and the skip guidance in view; Skip a quiet button
  (no fill, lighter type) beside the filled Submit;
- clustering at 1366×768, English, once all 30 texts are sorted (6 per group, by keyboard as in
  ``test_answers_e2e``): every group fits in one screen.

The figures of every screen are printed as a table (``-s``). A last test submits the first
classification task and finds "Task 2 of 3" next: the position follows Label Studio's stream.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hume_sync import task_types
from hume_sync.store import Store
from hume_sync.workflow.setup import render_subset_config
from label_studio_configs._common import is_rtl
from label_studio_configs._screen import SKIP_GUIDANCE
from tests._annotate import hume_env, set_up_study
from tests._screens_data import CLUSTER_PER_TOPIC, CLUSTER_TOPICS, LANGUAGES, screens_spec
from tests.integration import test_answers_e2e as answers

pytestmark = pytest.mark.labelstudio

browser = answers.browser  # the same fixture: Debian's chromium driven by Playwright
ROOT = Path(__file__).resolve().parents[2]
SIZES = {1366: 768, 1920: 1080}
#: Clustering at 1366×768: the last of the 30 texts is reached within this many window heights
#: (measured: 1.2-1.3; before this layout 8.9-9.6).
MAX_SCROLL_SCREENS = 1.5
#: Arabic: the choices' right edge is at most this far from the text's right edge.
MAX_RTL_GAP_PX = 40
N_CLUSTER_TEXTS = CLUSTER_TOPICS * CLUSTER_PER_TOPIC

# What the page shows, measured in the page. The task scrolls in `.lsf-main-content`; what is
# readable of it ends at the bottom bar and, for clustering, at the sticky unsorted-texts note.
MEASURE = """
() => {
  const W = window.innerWidth, H = window.innerHeight;
  const box = (e) => e.getBoundingClientRect();
  const union = (els) => {
    const rs = els.map(box).filter((b) => b.width > 0 && b.height > 0);
    if (!rs.length) return null;
    return {left: Math.min(...rs.map((b) => b.left)), right: Math.max(...rs.map((b) => b.right)),
            top: Math.min(...rs.map((b) => b.top)), bottom: Math.max(...rs.map((b) => b.bottom))};
  };
  const all = (sel) => [...document.querySelectorAll(sel)];
  const scroller = document.querySelector('.lsf-main-content');
  const task = document.querySelector('.lsf-main-view__annotation');
  const view = box(scroller);
  let bottom = Math.min(view.bottom, H);
  const bar = document.querySelector('.lsf-bottombar');
  if (bar) bottom = Math.min(bottom, box(bar).top);
  const note = document.querySelector('.hume-progress');
  if (note && box(note).height > 0) bottom = Math.min(bottom, box(note).top);
  const seen = bottom - view.top, st = scroller.scrollTop;
  const items = all('.htx-ranker-item').map((e) => {
    const b = box(e);
    return {top: b.top - view.top + st, bottom: b.bottom - view.top + st};
  });
  const shown = (e) => {
    if (!e) return false;
    const b = box(e), s = getComputedStyle(e);
    return b.height > 0 && b.top >= view.top - 1 && b.bottom <= bottom + 1
      && s.visibility !== 'hidden' && s.display !== 'none';
  };
  const outside = [task, ...task.querySelectorAll('*')].filter((e) => {
    const b = box(e);
    return b.width > 0 && b.height > 0 && (b.right > W + 1 || b.left < -1);
  }).length;
  const text = union(all('.lsf-richtext__line'));
  const choices = union(all('.lsf-choice__item label > *'));
  const skip = document.querySelector('[data-testid=bottombar-skip-button]');
  const submit = document.querySelector('[data-testid=bottombar-submit-button]');
  const position = document.querySelector('.hume-position');
  const guidance = document.querySelector('.hume-skip');
  return {
    page_overflow_px: document.documentElement.scrollWidth - W,
    outside: outside,
    scroller_overflow_px: scroller.scrollWidth - scroller.clientWidth,
    items: items.length,
    items_seen_first: items.filter((i) => i.top >= st - 1 && i.bottom <= st + seen + 1).length,
    scroll_to_last_screens: items.length
      ? Math.max(0, ...items.map((i) => i.bottom - seen)) / H : 0,
    first_column_text_px: items.length ? Math.round(box(document.querySelector(
      '.htx-ranker-column .htx-ranker-item p')).width) : null,
    columns_px: all('.htx-ranker-column').map((e) => Math.round(box(e).width)),
    side_panel_px: Math.round(all('.lsf-sidepanels__wrapper').map((e) => box(e).width)
      .reduce((x, y) => x + y, 0)),
    text_left: text && text.left, text_right: text && text.right,
    choices_left: choices && choices.left, choices_right: choices && choices.right,
    position: position ? position.innerText.trim() : null,
    position_shown: shown(position),
    guidance: guidance ? guidance.innerText.trim() : null,
    guidance_shown: shown(guidance),
    skip_look: skip && [getComputedStyle(skip).backgroundColor, getComputedStyle(skip).fontWeight],
    submit_look: submit && [getComputedStyle(submit).backgroundColor,
      getComputedStyle(submit).fontWeight],
  };
}
"""


@dataclass(frozen=True)
class Screen:
    """One subset's labelling screen: its project, its number of tasks, the texts its first
    task lists (0 for one-text and pair tasks) and whether it answers with choices."""

    project: int
    tasks: int
    items: int
    choices: bool


def artifacts() -> Path:
    base = Path(os.environ.get("HUME_TEST_ARTIFACTS") or ROOT / "test-artifacts")
    out = base / "annotator-screens"
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.png"):
        old.unlink()
    return out


@pytest.fixture(scope="module")
def world(annotator_servers, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """The study set up for one annotator who reads English and Arabic: every subset's project
    on her own server, and its number of tasks."""
    root = tmp_path_factory.mktemp("screens")
    mp = hume_env(root)
    a = annotator_servers[0]
    # eng,ara,fra: the English bitext subset translates into French, and a bitext seat needs
    # a reader of both its languages
    study = set_up_study(root / "study", screens_spec(root / "sources"), [(a, "eng,ara,fra")], mp)
    screens: dict[tuple[str, str], Screen] = {}
    with Store.open(study) as store:
        projects = {p.subset_key: p.ls_project_id for p in store.slot_projects() if p.slot == 1}
        for sub in store.subsets():
            if sub.key not in projects:
                # a subset with arms seats its one annotator in one arm only (she may never
                # see both versions of a query): her arm's screen is the subset's
                continue
            interface, first = task_types.get(sub.task_type), store.instances(sub.key)[0]
            language = sub.config.get("arm_of") or sub.key.rsplit("/", 1)[1]
            screens[(sub.task_type, language)] = Screen(
                project=projects[sub.key],
                tasks=len(store.instances(sub.key)),
                # what the first task shows, asked of the type's interface (no type names here)
                items=len(interface.ls_item_ids(first.content) or []),
                choices="<Choices" in render_subset_config(sub),
            )
    assert set(screens) == {(kind, lang) for kind in task_types.names() for lang in LANGUAGES}
    shots = artifacts()
    yield {"a": a, "screens": screens, "shots": shots, "figures": {}}
    mp.undo()
    print(f"\nscreenshots of the annotator screens: {shots}")


@pytest.fixture(scope="module")
def page(world, browser) -> Iterator[Any]:
    page = answers.log_in(browser, world["a"])
    yield page
    page.close()
    print("\nscreen figures:")
    for name, row in world["figures"].items():
        print(name, {k: v for k, v in row.items() if k not in ("position", "guidance")})


def open_stream(page: Any, url: str, project: int) -> None:
    page.goto(f"{url}/projects/{project}/data?labeling=1")
    page.locator("[data-testid=bottombar-submit-button]").wait_for()
    page.wait_for_timeout(1500)  # the task's fonts and the Ranker settle after the view appears


SCREENS = [
    (kind, lang, width) for width in SIZES for kind in task_types.names() for lang in LANGUAGES
]


@pytest.mark.parametrize(("kind", "lang", "width"), SCREENS, ids=lambda v: str(v))
def test_the_screen_fits_and_says_where_the_annotator_is(world, page, kind, lang, width):
    screen = world["screens"][(kind, lang)]
    page.set_viewport_size({"width": width, "height": SIZES[width]})
    open_stream(page, world["a"].url, screen.project)
    name = f"{kind}-{lang}-{width}"
    page.screenshot(path=world["shots"] / f"{name}.png")
    m = page.evaluate(MEASURE)
    world["figures"][name] = m

    assert m["page_overflow_px"] <= 0 and m["scroller_overflow_px"] <= 0 and m["outside"] == 0, m
    assert m["position"] == f"Task 1 of {screen.tasks}" and m["position_shown"], m
    assert m["guidance"] == SKIP_GUIDANCE and m["guidance_shown"], m
    # Skip is the quiet one: no fill, lighter type than the filled Submit
    assert m["skip_look"][0] == "rgba(0, 0, 0, 0)" != m["submit_look"][0], m
    assert int(m["skip_look"][1]) < int(m["submit_look"][1]), m
    # every text of a list task (clustering: 30) within reach on the laptop
    assert m["items"] == screen.items, m
    if width == 1366:
        assert m["scroll_to_last_screens"] <= MAX_SCROLL_SCREENS, m
    # the choices beside the text, on its side: right for Arabic, left for English
    if screen.choices:
        if is_rtl(lang):
            assert abs(m["text_right"] - m["choices_right"]) <= MAX_RTL_GAP_PX, m
        else:
            assert abs(m["choices_left"] - m["text_left"]) <= MAX_RTL_GAP_PX, m


def test_the_position_follows_the_stream(world, page):
    """After Submit, Label Studio's stream opens the next task: it says "Task 2 of N"."""
    screen = world["screens"][("classification", "eng_Latn")]
    n_tasks = screen.tasks
    page.set_viewport_size({"width": 1366, "height": 768})
    open_stream(page, world["a"].url, screen.project)
    assert page.locator(".hume-position").inner_text().strip() == f"Task 1 of {n_tasks}"
    page.locator(".lsf-choice__item label").first.click()
    page.locator("[data-testid=bottombar-submit-button]").click()
    page.locator(".hume-position", has_text=f"Task 2 of {n_tasks}").wait_for()


def test_a_sorted_group_fits_in_one_screen(world, page):
    """Sort the 30 English texts 6 per group (keyboard drag and drop) at 1366×768: each group
    column, 3 lines per text, is no taller than what the screen shows of the task."""
    screen = world["screens"][("clustering", "eng_Latn")]
    assert screen.items == N_CLUSTER_TEXTS
    page.set_viewport_size({"width": 1366, "height": 768})
    open_stream(page, world["a"].url, screen.project)
    for n in range(N_CLUSTER_TEXTS):
        answers.move_first_unsorted(page, n % CLUSTER_TOPICS + 1)
    counts = [answers.column(page, k).count() for k in range(CLUSTER_TOPICS + 1)]
    assert counts == [0] + [CLUSTER_PER_TOPIC] * CLUSTER_TOPICS
    page.screenshot(path=world["shots"] / "clustering-eng_Latn-1366-sorted.png")
    heights = page.evaluate(GROUP_HEIGHTS)
    world["figures"]["clustering-eng_Latn-1366-sorted"] = heights
    assert max(heights["groups_px"]) <= heights["seen_px"], heights


# Each group column's texts, top of the first to bottom of the last, against the height the
# screen shows of the task (from the top of the scroll area to the unsorted-texts note).
GROUP_HEIGHTS = """
() => {
  const box = (e) => e.getBoundingClientRect();
  const view = box(document.querySelector('.lsf-main-content'));
  const note = box(document.querySelector('.hume-progress'));
  const groups = [...document.querySelectorAll('.htx-ranker-column')].slice(1).map((c) => {
    const items = [...c.querySelectorAll('.htx-ranker-item')].map(box);
    return items.length ? Math.round(items[items.length - 1].bottom - items[0].top) : 0;
  });
  const widths = [...document.querySelectorAll('.htx-ranker-column')]
    .map((c) => Math.round(box(c).width));
  return {groups_px: groups, seen_px: Math.round(Math.min(note.top, view.bottom) - view.top),
          columns_px: widths};
}
"""
