// What the explorer does when it opens and when the user acts: search, open a paper, ask a position,
// place a draft, move a slider, filter, lay the map out again, colour it, and reopen the view a link describes.
// Each action changes the state, asks the apps (one latest-wins kind of request each), redraws the map,
// and writes the panels and the URL.

import { colourChoices, colourColumn, colourPoints } from "./colours.js";
import { $, el } from "./dom.js";
import { decodeFilter, filterChoices, filterFrom, keptRows } from "./filters.js";
import { countText } from "./format.js";
import { layoutFrom, nearestRows, viewAt } from "./geometry.js";
import { bringIntoView, draw, fitMap, resizeCanvas, scheduleDraw } from "./map.js";
import { namedRegions } from "./regions.js";
import {
  busy, clearMessage, descriptionText, resultsHeading, setStatus, showColourChoices, showDescription,
  showFilterColumns, showFilterInputs, showFilterNote, showLanding, showLegend, showMessage, showNeighbours,
  showPanel, showPaper, showPaperFailed, showPaperOpening, showPosition, showResults, showSearchOff, showShares,
  showSliders, showStatus,
} from "./panels.js";
import { api, bothSettled, latestWins, mapApp, searchApp, searchRoute, searchUnavailable } from "./requests.js";
import { decodeFragment, encodeFragment, paperIdIn, state, titleOf, weightsUsable } from "./state.js";

const RESULTS_K = 20;
const NEIGHBOURS_K = 10;
const NEAREST_K = 8;
const REST_MS = 150; // how long the URL and the sliders rest before the URL is written and lists are ranked again

const requests = {
  search: latestWins(showMessage),
  paper: latestWins(showMessage),
  neighbours: latestWins(showMessage),
  draft: latestWins(showMessage), // placing the draft, and ranking its neighbours again
  describe: latestWins(showMessage),
  layout: latestWins(showMessage),
};

/** `action`, once calls of the returned function have rested for `ms`. */
function afterRest(action, ms) {
  let timer = null;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(action, ms);
  };
}

export const writeUrl = afterRest(() => history.replaceState(null, "", `#${encodeFragment(state)}`), REST_MS);

/** The weights to send, or null after saying why there are none (every slider at zero). */
function usableWeights() {
  if (weightsUsable(state.aspects, state.weights)) return { ...state.weights };
  showMessage("Every aspect weight is 0, so nothing can be ranked: raise at least one slider.");
  return null;
}

/** The weights the map is laid out by, for the map app's requests about positions on it. */
const layoutBody = () => (state.layoutWeights ? { weights: state.layoutWeights } : {});

/** The filter, for the search app's rankings. */
const filterBody = () => (state.filter ? { filter: state.filter } : {});

// ----- opening the page ---------------------------------------------------------------------------------

/** The layout first (drawn at once), then what the apps can do and the papers' titles and columns, then
 * the view the URL asks for. */
export async function load() {
  const mapHealth = api(mapApp("/health")).catch((error) => ({ explain: false, explain_disabled: error.message }));
  const searchHealth = api(searchApp("/health")).catch((error) => ({ error }));
  const points = await api(mapApp("/points"));
  state.timings.points = performance.now();
  state.aspects = points.aspects;
  state.weights = { ...points.weights };
  showPoints(points);
  resizeCanvas();
  fitMap();
  draw();
  const [mapStatus, searchStatus] = await Promise.all([mapHealth, searchHealth]);
  state.explain = { on: Boolean(mapStatus.explain), why: mapStatus.explain_disabled || "" };
  if (searchStatus.error) searchOff(searchStatus.error);
  else await searchOn(searchStatus);
  await restoreView(location.hash);
  showStatus();
  document.body.dataset.ready = "1";
}

function searchOff(error) {
  state.search = { on: false, why: searchUnavailable(error, searchRoute()) };
  showSearchOff(state.search.why);
}

async function searchOn(health) {
  state.search = { on: true, why: "" };
  state.summariesWhy = health.summaries_disabled || "";
  try {
    const listing = await api(searchApp("/papers"));
    state.papers = { titles: listing.titles, columns: listing.columns, row: new Map(listing.ids.map((id, row) => [id, row])) };
    state.timings.papers = performance.now();
    nameRegions();
  } catch (error) {
    showMessage(`Paper titles could not be loaded: ${error.message}`);
  }
}

/** Reopen the view a fragment describes: weights, layout, colouring, viewport, query, then selection or position. */
async function restoreView(fragment) {
  const asked = decodeFragment(fragment, state.aspects);
  if (Object.keys(asked.weights).length) state.weights = { ...state.weights, ...asked.weights };
  showSliders(state.aspects, state.weights);
  if (Object.keys(asked.layoutWeights).length) await relayout(asked.layoutWeights);
  state.showRegions = asked.showRegions;
  $("#region-names").checked = asked.showRegions;
  const choices = colourChoices(state.layout, state.papers, state.regions);
  const colour = asked.colourBy || state.colourBy;
  state.colourBy = choices.includes(colour) ? colour : choices[0];
  showColourChoices(choices, state.colourBy);
  recolour();
  showFilterColumns(filterChoices(state.papers));
  const filter = decodeFilter(asked.filter, state.papers);
  if (filter) showFilterInputs(filter.column, state.papers.columns[filter.column], filter);
  applyFilter(filter);
  if (asked.viewport) state.view = viewAt(state.view, asked.viewport);
  scheduleDraw();
  if (asked.query) {
    $("#query").value = asked.query;
    await runSearch({ keepSelection: asked.selected !== null });
  }
  if (asked.selected) await selectPaper(asked.selected);
  else if (asked.position) choosePosition(asked.position.x, asked.position.y);
  writeUrl();
}

// ----- the map ------------------------------------------------------------------------------------------

/** The map app's points become the layout, coloured as chosen. */
function showPoints(points) {
  state.layout = layoutFrom(points);
  state.kept = keptRows(state.filter, state.layout, state.papers);
  nameRegions();
  recolour();
}

/** The map's regions, named from the papers' titles (none until the search app has listed them). */
function nameRegions() {
  const { titles, row } = state.papers;
  const started = performance.now();
  state.regions = titles ? namedRegions(state.layout, state.layout.ids.map((id) => titles[row.get(id)] || "")) : [];
  state.timings.regionsMs = performance.now() - started;
}

export function showRegionNames(on) {
  state.showRegions = on;
  scheduleDraw();
  writeUrl();
}

function recolour() {
  const column = colourColumn(state.colourBy, state.layout, state.papers, state.regions);
  state.colouring = colourPoints(column, state.layout.ids.length);
  showLegend(state.colouring.legend, state.colourBy);
}

export function colourBy(name) {
  state.colourBy = name;
  recolour();
  scheduleDraw();
  writeUrl();
}

/** Lay the map out by the sliders' weights. */
export const relayoutBySliders = () => relayout(usableWeights());

async function relayout(weights) {
  if (!weights) return;
  setStatus(`laying out ${countText(state.layout.ids.length)} papers by these weights (a t-SNE run: it takes a while)…`);
  const outcome = await requests.layout.send(() => api(mapApp("/layout"), { weights }), "The map could not be laid out");
  if (outcome.ok) {
    state.layoutWeights = weights;
    showPoints(outcome.answer);
    fitMap();
    if (state.draft) await placeDraft(state.draft.text, false);
    scheduleDraw();
    writeUrl();
  }
  if (outcome.current) showStatus();
}

// ----- the filter ---------------------------------------------------------------------------------------

/** Another column to filter by: its inputs, empty, and every paper kept until they say otherwise. */
export function chooseFilterColumn(name) {
  showFilterInputs(name, state.papers.columns[name], null);
  filterChanged();
}

/** The filter's inputs changed: once they rest, the map fades what it leaves out and the lists are ranked again. */
export const filterChanged = afterRest(() => {
  const name = $("#filter-column").value;
  const typed = { min: $("#filter-min").value, max: $("#filter-max").value, value: $("#filter-value").value };
  const filter = filterFrom(state.papers.columns[name], name, typed);
  if (JSON.stringify(filter) === JSON.stringify(state.filter)) return;
  applyFilter(filter);
  writeUrl();
  for (const [list, shown] of Object.entries(rankedLists())) if (shown) busy(list, true);
  rankAgain();
}, REST_MS);

function applyFilter(filter) {
  state.filter = filter;
  state.kept = keptRows(filter, state.layout, state.papers);
  showFilterNote(filter, state.kept ? state.kept.reduce((a, b) => a + b, 0) : 0, state.layout.ids.length);
  scheduleDraw();
}

// ----- weights ------------------------------------------------------------------------------------------

/** A slider moved: its share shows at once; what is on screen is ranked again once the sliders rest. */
export function setWeight(aspect, value) {
  state.weights[aspect] = value;
  showShares(state.weights);
  writeUrl();
  for (const [list, shown] of Object.entries(rankedLists())) if (shown) busy(list, true);
  rankAgain();
}

/** The lists that follow the weights, and whether each is on screen. */
const rankedLists = () => ({ "#results": state.query, "#neighbours": state.selected, "#draft-neighbours": state.draft });

const rankAgain = afterRest(() => {
  if (!usableWeights()) {
    for (const list of Object.keys(rankedLists())) busy(list, false);
    return;
  }
  clearMessage();
  if (state.query) runSearch({ keepSelection: true });
  if (state.selected) refreshNeighbours(false);
  if (state.draft) rerankDraft();
}, REST_MS);

// ----- search -------------------------------------------------------------------------------------------

function listResults(results, nearId) {
  state.results = results;
  showResults(results, resultsHeading(results.length, nearId, state.query));
  scheduleDraw();
}

/** Search by the query box: by words, or by the paper it names (which opens, unless `keepSelection`). */
export async function runSearch({ keepSelection }) {
  const text = $("#query").value.trim();
  state.query = text;
  writeUrl();
  const weights = text && state.search.on ? usableWeights() : null;
  const id = weights ? paperIdIn(text, state.papers) : null;
  if (!weights || id === "") {
    requests.search.supersede();
    refuseSearch(text, id);
    return;
  }
  setStatus("searching…");
  busy("#results", true);
  const target = id !== null ? { id } : { query: text };
  const body = { ...target, k: RESULTS_K, weights, ...filterBody() };
  const outcome = await requests.search.send(() => api(searchApp("/"), body));
  if (!outcome.current) return;
  if (outcome.ok) {
    clearMessage();
    listResults(outcome.answer.results, id);
    if (id !== null && !keepSelection) selectPaper(id, { pan: true });
  } else listResults([], null);
  busy("#results", false);
  showStatus();
}

/** Download the listed papers as one CSV, BibTeX or RIS file (the search app writes it). */
export async function exportResults(format) {
  const ids = state.results.map((hit) => hit.id);
  try {
    const response = await fetch(searchApp("/export"), {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ ids, format }) });
    if (!response.ok) throw new Error((await response.json()).error.message);
    const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
    const url = URL.createObjectURL(await response.blob());
    el("a", { href: url, download: name ? name[1] : "papers" }).click();
    setTimeout(() => URL.revokeObjectURL(url), 0);  // once the click has handed the file to the browser
  } catch (error) {
    showMessage(`The export failed: ${error.message}`);
  }
}

/** Say why a search is not sent (unusable weights have said so already). */
function refuseSearch(text, id) {
  if (!text) {
    listResults([], null);
    showMessage("Type words to search for, paste an abstract, or give a paper id (id:…).");
  } else if (!state.search.on) showMessage(state.search.why);
  else if (id === "") showMessage("Give the paper id after id: (for example id:W123).");
  busy("#results", false);
}

// ----- a paper ------------------------------------------------------------------------------------------

/** Open a paper in the reader (`pan`: bring it into view), then rank its neighbours. */
export async function selectPaper(id, { pan = false } = {}) {
  state.selected = id;
  state.position = null;
  if (state.neighboursOf !== id) { state.neighbours = []; state.neighboursOf = null; }
  const row = state.layout.row.get(id);
  if (pan && row !== undefined) bringIntoView(state.layout.xs[row], state.layout.ys[row], 40);
  writeUrl();
  scheduleDraw();
  showPanel("paper");
  showPaperOpening(id, state.search.on ? "" : state.search.why);
  if (!state.search.on) return;
  const outcome = await requests.paper.send(() => api(searchApp(`/papers/${encodeURIComponent(id)}`)));
  if (!outcome.current) return;
  if (!outcome.ok) { showPaperFailed(outcome.error.message); return; }
  showPaper(outcome.answer, state.summariesWhy);
  await refreshNeighbours(true);
}

/** The selected paper's neighbours under the current weights, marked with how each moved since the last ranking
 * (unless `fresh`). */
async function refreshNeighbours(fresh) {
  const id = state.selected;
  const weights = usableWeights();
  if (id === null || !weights || !state.search.on) { busy("#neighbours", false); return; }
  busy("#neighbours", true);
  const outcome = await requests.neighbours.send(() => api(searchApp("/"), { id, k: NEIGHBOURS_K, weights, ...filterBody() }));
  if (!outcome.current) return;
  if (outcome.ok) {
    if (state.selected !== id) return; // another paper is opening: its neighbours come next
    const before = fresh || state.neighboursOf !== id ? null : state.neighbours.map((hit) => hit.id);
    state.neighbours = outcome.answer.results;
    state.neighboursOf = id;
    showNeighbours(state.neighbours, before, NEIGHBOURS_K);
    scheduleDraw();
  }
  busy("#neighbours", false);
}

// ----- a position ---------------------------------------------------------------------------------------

/** The papers nearest to a map position, as hits to list. */
function nearestPapers(x, y, k) {
  return nearestRows(state.layout, x, y, k).map((row) => ({ id: state.layout.ids[row], title: titleOf(state, state.layout.ids[row]) }));
}

/** Empty space was clicked: show the position and its nearest papers (headed by the region's name when `region`
 * is the named region whose centre it is). */
export function choosePosition(x, y, region = null) {
  state.position = { x, y };
  state.selected = null;
  writeUrl();
  scheduleDraw();
  showPanel("position");
  showPosition(state.position, state.explain, nearestPapers(x, y, NEAREST_K), region);
}

/** A region's name was clicked: its centre as a position, described at once where a decoder is served (the
 * title words name what is there; the decoder says it in a sentence). */
export function chooseRegion(region) {
  choosePosition(region.x, region.y, region);
  if (state.explain.on) describePosition();
}

/** Decode an embedding reconstructed at the chosen position. */
export async function describePosition() {
  const { x, y } = state.position;
  showDescription("decoding…", false);
  const outcome = await requests.describe.send(() => api(mapApp("/explain"), { x, y, ...layoutBody() }));
  if (outcome.current) showDescription(outcome.ok ? descriptionText(outcome.answer.texts) : "", outcome.ok);
}

// ----- a draft ------------------------------------------------------------------------------------------

/** A draft's nearest papers under the weights (null without search). */
function draftNeighbours(text, weights) {
  if (!state.search.on) return Promise.resolve(null);
  return api(searchApp("/"), { query: text, k: NEIGHBOURS_K, weights, ...filterBody() }).then((data) => data.results);
}

/** Where a draft lands, and its nearest papers; when both are refused, the map's refusal is the one shown. */
async function landing(text, weights) {
  const [where, near] = await bothSettled(api(mapApp("/place"), { text, ...layoutBody() }), draftNeighbours(text, weights));
  return { where, near };
}

/** Place a draft on the shown layout; `show` opens it in the reader and brings it into view (a re-layout places
 * it again without). */
export async function placeDraft(text, show) {
  if (!text) { showMessage("Paste an abstract first: the draft box is empty."); return; }
  const weights = usableWeights();
  if (!weights) return;
  setStatus("placing the draft…");
  const outcome = await requests.draft.send(() => landing(text, weights), "The draft could not be placed");
  if (outcome.ok) {
    clearMessage();
    state.draft = { text, x: outcome.answer.where.x, y: outcome.answer.where.y };
    if (show) openDraft();
    showDraftNeighbours(outcome.answer.near);
  }
  showStatus();
}

function openDraft() {
  state.selected = null;
  state.position = null;
  bringIntoView(state.draft.x, state.draft.y);
  showPanel("draft");
  writeUrl();
}

function showDraftNeighbours(near) {
  const { x, y } = state.draft;
  state.draftNeighbours = near || [];
  const beside = titleOf(state, state.layout.ids[nearestRows(state.layout, x, y, 1)[0]]);
  showLanding(state.draft, beside, near, state.search.why);
  scheduleDraw();
}

/** A slider moved: the draft stays where it landed (the layout is the same); its nearest papers are ranked again. */
async function rerankDraft() {
  const weights = usableWeights();
  if (!state.draft || !weights) { busy("#draft-neighbours", false); return; }
  const { text } = state.draft;
  const outcome = await requests.draft.send(() => draftNeighbours(text, weights));
  if (!outcome.current) return;
  if (outcome.ok) showDraftNeighbours(outcome.answer);
  busy("#draft-neighbours", false);
}

/** Take the draft off the map (what was being asked about it is dropped). */
export function clearDraft() {
  requests.draft.supersede();
  state.draft = null;
  state.draftNeighbours = [];
  showPanel("none");
  scheduleDraw();
}
