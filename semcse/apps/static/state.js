// The explorer's state, and the part of it that a link reopens.
//
// `state` is the one object the other modules read and change. The view (query, weights, selected
// paper or clicked position, viewport, colouring, layout weights) is written into the URL's fragment by
// `encodeFragment` and read back by `decodeFragment`, which is how a shared link reopens the same view.
// Nothing here touches the page.

import { encodeFilter } from "./filters.js";
import { layoutFrom } from "./geometry.js";

export function createState() {
  return {
    layout: layoutFrom({ ids: [], x: [], y: [], labels: null }), // the points on the map (geometry.js)
    papers: { titles: null, columns: {}, row: new Map() }, // the search app's listing, by paper id → row
    colourBy: "label", // "label", "region", a corpus column or "none"
    regions: [], // the named regions at every scale (regions.js), once titles and points are in
    showRegions: true,
    filter: null, // {column, min, max} or {column, values} (filters.js): what rankings return, what the map shows
    kept: null, // the filter's flag per layout row (null: no filter)
    colouring: { hexes: [], colours: new Uint32Array(0), dimmed: new Uint32Array(0), legend: null }, // colours.js
    view: { width: 1, height: 1, cx: 0, cy: 0, scale: 1, fit: 1 }, // the viewport (geometry.js)
    aspects: [],
    weights: {}, // aspect → slider value in [0, 1]; what searches rank by
    layoutWeights: null, // the weights the map was laid out by, when not the saved layout's
    query: "",
    results: [],
    selected: null, // a paper id
    neighbours: [],
    neighboursOf: null, // whose neighbours `neighbours` are, to mark how they moved when the weights change
    position: null, // {x, y}: a clicked empty position
    draft: null, // {text, x, y}: a placed draft
    draftNeighbours: [],
    search: { on: false, why: "" }, // whether the search app answers, and why not
    explain: { on: false, why: "" }, // whether the map app has a decoder, and why not
    summariesWhy: "",
    timings: {}, // performance.now() when the points came, the titles came and the first frame was drawn
  };
}

export const state = createState();

export function titleOf({ papers }, id) {
  const row = papers.row.get(id);
  return row === undefined || !papers.titles ? id : papers.titles[row] || id;
}

/** The paper a query names: `id:X` (X may be empty), or exactly the id of a listed paper; else null. */
export function paperIdIn(text, papers) {
  if (text.startsWith("id:")) return text.slice(3).trim();
  return papers.row.has(text) ? text : null;
}

// ----- aspect weights -----------------------------------------------------------------------------------

function weightsTotal(weights) {
  return Object.values(weights).reduce((a, b) => a + b, 0);
}

/** Whether the weights can rank anything: one aspect always can, several need a weight above zero. */
export function weightsUsable(aspects, weights) {
  return aspects.length < 2 || weightsTotal(weights) > 0;
}

/** Each aspect's share of the total weight, in whole percent; null for every aspect when all are zero. */
export function weightShares(weights) {
  const total = weightsTotal(weights);
  return Object.fromEntries(Object.entries(weights).map(([a, w]) => [a, total > 0 ? Math.round((100 * w) / total) : null]));
}

export function encodeWeights(weights) {
  return Object.entries(weights).map(([a, w]) => `${encodeURIComponent(a)}:${+w.toFixed(3)}`).join(",");
}

/** Weights written by `encodeWeights`: unknown aspects and unreadable values are left out, values kept in [0, 1]. */
export function decodeWeights(text, aspects) {
  const weights = {};
  for (const part of (text || "").split(",")) {
    const cut = part.lastIndexOf(":");
    if (cut < 0) continue;
    const aspect = decodeURIComponent(part.slice(0, cut));
    const value = Number(part.slice(cut + 1));
    if (aspects.includes(aspect) && Number.isFinite(value)) weights[aspect] = Math.min(1, Math.max(0, value));
  }
  return weights;
}

// ----- the URL's fragment -------------------------------------------------------------------------------

/** The view as a fragment (no "#"): q, w, sel, at, v (centre and zoom), c, lw, names, f; each only when it says something. */
export function encodeFragment(state) {
  const params = new URLSearchParams();
  const { view, position } = state;
  if (state.query) params.set("q", state.query);
  if (state.aspects.length > 1) params.set("w", encodeWeights(state.weights));
  if (state.selected) params.set("sel", state.selected);
  if (position) params.set("at", `${position.x.toFixed(4)},${position.y.toFixed(4)}`);
  params.set("v", `${view.cx.toFixed(4)},${view.cy.toFixed(4)},${(view.scale / view.fit).toFixed(3)}`);
  if (state.colourBy !== "label") params.set("c", state.colourBy);
  if (state.layoutWeights) params.set("lw", encodeWeights(state.layoutWeights));
  if (!state.showRegions) params.set("names", "0");
  if (state.filter) params.set("f", encodeFilter(state.filter));
  return params.toString();
}

/** The view a fragment asks for, for a map of these aspects; what is absent or unreadable is null (weights: {}). */
export function decodeFragment(fragment, aspects) {
  const params = new URLSearchParams(fragment.replace(/^#/, ""));
  const numbers = (key, count) => {
    const values = (params.get(key) || "").split(",").map(Number);
    return values.length === count && values.every(Number.isFinite) ? values : null;
  };
  const viewport = numbers("v", 3);
  const at = numbers("at", 2);
  return {
    query: params.get("q") || "",
    weights: decodeWeights(params.get("w"), aspects),
    layoutWeights: decodeWeights(params.get("lw"), aspects),
    colourBy: params.get("c") || null,
    showRegions: params.get("names") !== "0",
    filter: params.get("f"), // read against the listing's columns (filters.js: decodeFilter)
    viewport: viewport && viewport[2] > 0 ? { cx: viewport[0], cy: viewport[1], zoom: viewport[2] } : null,
    selected: params.get("sel"),
    position: at && { x: at[0], y: at[1] },
  };
}
