// The map's colours: a colour for every point from the column the map is coloured by (the layout's
// labels, its named regions or a corpus column: a palette for categories, a ramp for numbers), as canvas
// pixels, plain and washed out (when papers are marked), and the legend that explains them.

import { regionColumn } from "./regions.js";

export const PALETTE = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d",
                        "#eeca3b", "#bab0ac", "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                        "#17becf", "#bcbd22", "#7f7f7f", "#393b79"];
export const RAMP = ["#440154", "#3b528b", "#21918c", "#5ec962", "#fde725"];
export const MISSING = "#cfd4d8";
export const OTHER = "#9aa3ab";
export const BACKGROUND = "#fbfcfd";
const WASH = 0.72; // how far an unmarked point is washed towards white while papers are marked

function rgb(hex) {
  const value = parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/** A colour as one pixel of a Uint32Array over ImageData (little-endian RGBA), optionally washed towards white. */
export function pixel(hex, wash = 0) {
  const [r, g, b] = rgb(hex).map((c) => Math.round(c + (255 - c) * wash));
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

/** The colour at t in [0, 1] (clamped) along RAMP, mixed linearly between its stops. */
export function ramp(t) {
  const scaled = Math.min(1, Math.max(0, t)) * (RAMP.length - 1);
  const i = Math.min(RAMP.length - 2, Math.floor(scaled));
  const [a, b] = [rgb(RAMP[i]), rgb(RAMP[i + 1])];
  const mix = a.map((c, k) => Math.round(c + (b[k] - c) * (scaled - i)));
  return `#${mix.map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}

/** What the map can be coloured by: its labels (when it has them), its named regions (when there are any; the
 * coarsest scale of regions.js), each corpus column, or nothing. */
export function colourChoices(layout, papers, regions = []) {
  return [...(layout.labels ? ["label"] : []), ...(regions[0]?.length ? ["region"] : []), ...Object.keys(papers.columns), "none"];
}

/** The layout's labels as categories, most frequent first; past the palette's size the rest are "other". */
function labelColumn(labels) {
  const counts = new Map();
  for (const label of labels) counts.set(label, (counts.get(label) || 0) + 1);
  const names = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a));
  const cut = names.slice(0, PALETTE.length);
  const index = new Map(cut.map((label, i) => [label, i]));
  const codes = Int32Array.from(labels, (label) => (index.has(label) ? index.get(label) : cut.length));
  const other = names.length > cut.length;
  return { kind: "category", names: other ? [...cut, "other"] : cut, codes, other };
}

/** A corpus column, by map point (a point the listing lacks is missing: NaN, or code -1). */
function corpusColumn(column, layout, papers) {
  const rows = layout.ids.map((id) => papers.row.get(id));
  if (column.kind === "number") {
    return { kind: "number", values: Float64Array.from(rows, (row) => (row === undefined || column.values[row] === null ? NaN : column.values[row])) };
  }
  const codes = Int32Array.from(rows, (row) => (row === undefined ? -1 : column.codes[row]));
  return { kind: "category", names: column.categories, codes, other: column.other };
}

/** The column named `name`, per map point: {kind: "category", names, codes, other} or {kind: "number", values}; null for none. */
export function colourColumn(name, layout, papers, regions = []) {
  if (name === "label" && layout.labels) return labelColumn(layout.labels);
  if (name === "region" && regions[0]?.length) return regionColumn(layout, regions[0]);
  const column = papers.columns[name];
  return column ? corpusColumn(column, layout, papers) : null;
}

function categoryColours(column) {
  const last = column.names.length - 1;
  const colourOf = (code) => (code < 0 ? MISSING : column.other && code === last ? OTHER : PALETTE[code % PALETTE.length]);
  const counts = new Array(column.names.length).fill(0);
  for (const code of column.codes) if (code >= 0) counts[code] += 1;
  const entries = column.names.map((name, code) => [name, colourOf(code), counts[code]]);
  return { hexes: Array.from(column.codes, colourOf), legend: { kind: "category", entries } };
}

function numberColours(column) {
  let low = Infinity;
  let high = -Infinity;
  for (const v of column.values) if (!Number.isNaN(v)) { low = Math.min(low, v); high = Math.max(high, v); }
  const colourOf = (v) => (Number.isNaN(v) ? MISSING : ramp(high > low ? (v - low) / (high - low) : 0.5));
  return { hexes: Array.from(column.values, colourOf), legend: { kind: "number", low, high } };
}

/**
 * The colouring of `n` points by `column` (from colourColumn; null colours every point alike): each point's
 * colour (hexes), its pixel plain and washed out (colours, dimmed), and the legend (null for none).
 */
export function colourPoints(column, n) {
  const { hexes, legend } = column === null ? { hexes: new Array(n).fill(PALETTE[0]), legend: null }
    : column.kind === "category" ? categoryColours(column) : numberColours(column);
  const cache = new Map();
  const colours = new Uint32Array(n);
  const dimmed = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    if (!cache.has(hexes[i])) cache.set(hexes[i], [pixel(hexes[i]), pixel(hexes[i], WASH)]);
    [colours[i], dimmed[i]] = cache.get(hexes[i]);
  }
  return { hexes, colours, dimmed, legend };
}
