// The literature explorer's entry: search, steer, map and read a corpus from one page. It attaches
// the map canvas, connects the page's controls to what they do, and loads the map.
//
// The map app (this page's own route) gives the layout, places drafts and describes positions; the
// search app (the route in <meta name="semcse-search">) ranks papers under the aspect weights and holds
// their titles, abstracts, corpus columns and summaries. The modules: state.js (the state and the URL
// that reopens a view), requests.js (talking to the apps), geometry.js and colours.js (the map's maths),
// regions.js (naming the map's regions), filters.js (a filter by a corpus column), map.js (the canvas),
// panels.js (the rest of the page), actions.js (what each action does), and two helpers, format.js and dom.js.

import * as actions from "./actions.js";
import { $ } from "./dom.js";
import { attachMap, draw, fitMap, regionLabelsDrawn, regionNamesDrawn, scheduleDraw, screenOf, zoomBy } from "./map.js";
import { clearMessage, setStatus, showMessage } from "./panels.js";
import { state } from "./state.js";

const ZOOM_STEP = 1.6;

/** A click on a paper's title in any list opens that paper (instead of following its #sel= link). */
function openTitle(event) {
  const link = event.target.closest("a.title");
  if (!link) return;
  event.preventDefault();
  actions.selectPaper(link.closest("li[data-id]").dataset.id, { pan: true });
}

function connectControls() {
  $("#message-close").addEventListener("click", clearMessage);
  $("#search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    actions.runSearch({ keepSelection: false });
  });
  $("#weights").addEventListener("input", (event) => actions.setWeight(event.target.dataset.aspect, Number(event.target.value)));
  $("#relayout").addEventListener("click", actions.relayoutBySliders);
  $("#export").addEventListener("click", (event) => { if (event.target.dataset.format) actions.exportResults(event.target.dataset.format); });
  $("#colour-by").addEventListener("change", (event) => actions.colourBy(event.target.value));
  $("#region-names").addEventListener("change", (event) => actions.showRegionNames(event.target.checked));
  $("#filter-column").addEventListener("change", (event) => actions.chooseFilterColumn(event.target.value));
  for (const input of ["#filter-min", "#filter-max", "#filter-value"]) $(input).addEventListener("input", actions.filterChanged);
  $("#zoom-in").addEventListener("click", () => zoomBy(ZOOM_STEP));
  $("#zoom-out").addEventListener("click", () => zoomBy(1 / ZOOM_STEP));
  $("#zoom-reset").addEventListener("click", () => { fitMap(); scheduleDraw(); actions.writeUrl(); });
  $("#place").addEventListener("click", () => actions.placeDraft($("#draft").value.trim(), true));
  $("#clear-draft").addEventListener("click", actions.clearDraft);
  $("#describe-box").addEventListener("click", (event) => { if (event.target.id === "describe") actions.describePosition(); });
  document.addEventListener("click", openTitle);
  // the page writes its own fragment without this event firing; a link pasted over it is another view: open it
  window.addEventListener("hashchange", () => location.reload());
}

attachMap($("#map"), {
  pick: (id) => actions.selectPaper(id),
  pickRegion: actions.chooseRegion,
  pickPosition: (x, y) => actions.choosePosition(x, y),
  moved: actions.writeUrl,
});
connectControls();
// for tests and the console: the state (its `timings` say when the first frame was drawn), where a paper is
// drawn (CSS pixels in the canvas), one frame drawn now, and the region names it drew (with where, in CSS pixels)
window.explorer = { state, redraw: draw, screenOf, regionNamesDrawn, regionLabelsDrawn };
actions.load().catch((error) => {
  showMessage(`The map could not be loaded: ${error.message}`);
  setStatus("not loaded");
});
