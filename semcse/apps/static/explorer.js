// The literature explorer: search, steer, map and read a corpus from one page.
//
// Where things come from: the map app (this page's own route) gives the layout, places drafts and
// describes positions; the search app (the route in <meta name="semcse-search">) ranks papers under
// the aspect weights and holds their titles, abstracts, corpus columns and summaries.
//
// Drawing: every point is written into one ImageData buffer in a single loop and put on the canvas
// at once (a 40k-point frame is a few milliseconds, so pan and zoom redraw every frame); the few
// marked papers (results, the selection and its neighbours, a draft) are drawn over it with the
// canvas API. Hover and click find points through a uniform grid over the layout, so neither scans
// every point. The view (query, weights, selection, position, viewport, colouring, layout) lives in
// the URL's fragment, so a link reopens it.
"use strict";

const MAP = location.pathname.replace(/\/$/, "");
const SEARCH = document.querySelector('meta[name="semcse-search"]').content.replace(/\/$/, "");
const RESULTS_K = 20;
const NEIGHBOURS_K = 10;
const NEAREST_K = 8;
const PALETTE = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d",
                 "#eeca3b", "#bab0ac", "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                 "#17becf", "#bcbd22", "#7f7f7f", "#393b79"];
const RAMP = ["#440154", "#3b528b", "#21918c", "#5ec962", "#fde725"];
const MISSING = "#cfd4d8";
const OTHER = "#9aa3ab";
const BACKGROUND = "#fbfcfd";

const $ = (selector) => document.querySelector(selector);

/** An element with attributes and children (strings become text nodes: corpus text is never parsed as HTML). */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// ----- state --------------------------------------------------------------------------------------------

const state = {
  ids: [], xs: new Float32Array(0), ys: new Float32Array(0), labels: null, row: new Map(),
  aspects: [], weights: {}, layoutWeights: null,
  titles: null, columns: {}, paperRow: new Map(),
  colourBy: "label", hexes: [], colours: new Uint32Array(0), dimmed: new Uint32Array(0), legend: null,
  view: { cx: 0, cy: 0, scale: 1, fit: 1 },
  query: "", results: [],
  selected: null, neighbours: [], neighboursOf: null,
  position: null, draft: null, draftNeighbours: [],
  search: { on: false, why: "" }, explain: { on: false, why: "" }, summariesWhy: "",
  timings: {},
};
const sequence = { search: 0, paper: 0, neighbours: 0, draft: 0, describe: 0, layout: 0 };

// ----- talking to the apps ----------------------------------------------------------------------------

/** GET (no body) or POST JSON; a refusal becomes an Error carrying the service's own message and status. */
async function api(url, body) {
  let response;
  try {
    response = await fetch(url, body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  } catch (error) {
    throw new Error(`the service did not answer (${error.message})`);
  }
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (!response.ok) {
    const error = new Error(data && data.error ? data.error.message : `${response.status} ${response.statusText}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

function showMessage(text) {
  $("#message-text").textContent = text;
  $("#message").hidden = false;
}

function clearMessage() { $("#message").hidden = true; $("#message-text").textContent = ""; }

$("#message-close").addEventListener("click", clearMessage);

function setStatus(text) { $("#status").textContent = text; }

/** Mark a list as being ranked again (aria-busy), from the moment a change asks for it until the answer is shown. */
function busy(selector, flag) { $(selector).setAttribute("aria-busy", String(flag)); }

function titleOf(id) {
  const row = state.paperRow.get(id);
  return row === undefined || !state.titles ? id : state.titles[row] || id;
}

// ----- the URL holds the view ---------------------------------------------------------------------------

function encodeWeights(weights) {
  return Object.entries(weights).map(([a, w]) => `${encodeURIComponent(a)}:${+w.toFixed(3)}`).join(",");
}

function decodeWeights(text) {
  const weights = {};
  for (const part of (text || "").split(",")) {
    const cut = part.lastIndexOf(":");
    if (cut < 0) continue;
    const aspect = decodeURIComponent(part.slice(0, cut));
    const value = Number(part.slice(cut + 1));
    if (state.aspects.includes(aspect) && Number.isFinite(value)) weights[aspect] = Math.min(1, Math.max(0, value));
  }
  return weights;
}

let urlTimer = null;
function writeUrl() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    const params = new URLSearchParams();
    const v = state.view;
    if (state.query) params.set("q", state.query);
    if (state.aspects.length > 1) params.set("w", encodeWeights(state.weights));
    if (state.selected) params.set("sel", state.selected);
    if (state.position) params.set("at", `${state.position.x.toFixed(4)},${state.position.y.toFixed(4)}`);
    params.set("v", `${v.cx.toFixed(4)},${v.cy.toFixed(4)},${(v.scale / v.fit).toFixed(3)}`);
    if (state.colourBy !== "label") params.set("c", state.colourBy);
    if (state.layoutWeights) params.set("lw", encodeWeights(state.layoutWeights));
    history.replaceState(null, "", `#${params}`);
  }, 150);
}

function readUrl() {
  return new URLSearchParams(location.hash.replace(/^#/, ""));
}

// ----- colours ------------------------------------------------------------------------------------------

function rgb(hex) {
  const value = parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/** A colour as one pixel of a Uint32Array over ImageData (little-endian RGBA), optionally washed towards white. */
function pixel(hex, wash = 0) {
  const [r, g, b] = rgb(hex).map((c) => Math.round(c + (255 - c) * wash));
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

function ramp(t) {
  const scaled = Math.min(1, Math.max(0, t)) * (RAMP.length - 1);
  const i = Math.min(RAMP.length - 2, Math.floor(scaled));
  const [a, b] = [rgb(RAMP[i]), rgb(RAMP[i + 1])];
  const mix = a.map((c, k) => Math.round(c + (b[k] - c) * (scaled - i)));
  return `#${mix.map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}

/** The column the map is coloured by, per map point: {kind: "category", names, codes} or {kind: "number", values}. */
function colourColumn(name) {
  const n = state.ids.length;
  if (name === "label" && state.labels) {
    const counts = new Map();
    for (const label of state.labels) counts.set(label, (counts.get(label) || 0) + 1);
    const names = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a));
    const cut = names.slice(0, PALETTE.length);
    const index = new Map(cut.map((label, i) => [label, i]));
    const codes = Int32Array.from(state.labels, (label) => (index.has(label) ? index.get(label) : cut.length));
    const other = names.length > cut.length;
    return { kind: "category", names: other ? [...cut, "other"] : cut, codes, other };
  }
  const column = state.columns[name];
  if (!column) return null;
  const rowOf = (i) => state.paperRow.get(state.ids[i]);
  if (column.kind === "number") {
    const values = new Float64Array(n).fill(NaN);
    for (let i = 0; i < n; i++) {
      const row = rowOf(i);
      if (row !== undefined && column.values[row] !== null) values[i] = column.values[row];
    }
    return { kind: "number", values };
  }
  const codes = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const row = rowOf(i);
    if (row !== undefined) codes[i] = column.codes[row];
  }
  return { kind: "category", names: column.categories, codes, other: column.other };
}

function applyColours() {
  const n = state.ids.length;
  const column = colourColumn(state.colourBy);
  const hexes = new Array(n).fill(PALETTE[0]);
  state.legend = null;
  if (column && column.kind === "category") {
    const last = column.names.length - 1;
    const colourOf = (code) => (code < 0 ? MISSING : column.other && code === last ? OTHER : PALETTE[code % PALETTE.length]);
    for (let i = 0; i < n; i++) hexes[i] = colourOf(column.codes[i]);
    const counts = new Array(column.names.length).fill(0);
    for (const code of column.codes) if (code >= 0) counts[code] += 1;
    state.legend = { kind: "category", entries: column.names.map((name, code) => [name, colourOf(code), counts[code]]) };
  } else if (column && column.kind === "number") {
    let low = Infinity;
    let high = -Infinity;
    for (const v of column.values) if (!Number.isNaN(v)) { low = Math.min(low, v); high = Math.max(high, v); }
    for (let i = 0; i < n; i++) {
      const v = column.values[i];
      hexes[i] = Number.isNaN(v) ? MISSING : ramp(high > low ? (v - low) / (high - low) : 0.5);
    }
    state.legend = { kind: "number", low, high };
  }
  const cache = new Map();
  state.colours = new Uint32Array(n);
  state.dimmed = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    if (!cache.has(hexes[i])) cache.set(hexes[i], [pixel(hexes[i]), pixel(hexes[i], 0.72)]);
    [state.colours[i], state.dimmed[i]] = cache.get(hexes[i]);
  }
  state.hexes = hexes;
  drawLegend();
}

function drawLegend() {
  const legend = $("#legend");
  legend.replaceChildren();
  legend.hidden = !state.legend;
  if (!state.legend) return;
  if (state.legend.kind === "number") {
    const gradient = `linear-gradient(to right, ${RAMP.join(", ")})`;
    const number = (v) => (Number.isInteger(v) ? String(v) : v.toPrecision(3));
    legend.append(el("span", {}, `${state.colourBy}: ${number(state.legend.low)}`,
      el("i", { class: "ramp", style: `background: ${gradient}` }), number(state.legend.high)));
    return;
  }
  for (const [name, colour, count] of state.legend.entries) {
    legend.append(el("span", { dataset: { category: name } }, el("i", { style: `background: ${colour}` }),
      `${name || "(none)"} (${count.toLocaleString()})`));
  }
}

// ----- view and drawing ---------------------------------------------------------------------------------

const canvas = $("#map");
const context = canvas.getContext("2d");
let image = null;
let pixels = null;
let drawQueued = false;

function ratio() { return window.devicePixelRatio || 1; }

function resize() {
  const width = Math.max(1, Math.round(canvas.clientWidth * ratio()));
  const height = Math.max(1, Math.round(canvas.clientHeight * ratio()));
  if (canvas.width === width && canvas.height === height && image) return;
  const zoom = state.view.scale / state.view.fit;
  canvas.width = width;
  canvas.height = height;
  image = context.createImageData(width, height);
  pixels = new Uint32Array(image.data.buffer);
  if (state.ids.length) {
    state.view.fit = fitScale(bounds());
    state.view.scale = state.view.fit * zoom;
  }
}

function bounds() {
  let [x0, x1, y0, y1] = [Infinity, -Infinity, Infinity, -Infinity];
  for (let i = 0; i < state.xs.length; i++) {
    x0 = Math.min(x0, state.xs[i]); x1 = Math.max(x1, state.xs[i]);
    y0 = Math.min(y0, state.ys[i]); y1 = Math.max(y1, state.ys[i]);
  }
  return { x0, x1, y0, y1 };
}

/** The scale at which the whole layout fits the canvas with a margin: zoom levels are relative to it. */
function fitScale(b) {
  return 0.92 * Math.min(canvas.width / Math.max(b.x1 - b.x0, 1e-9), canvas.height / Math.max(b.y1 - b.y0, 1e-9));
}

function fitView() {
  const b = bounds();
  const fit = fitScale(b);
  state.view = { cx: (b.x0 + b.x1) / 2, cy: (b.y0 + b.y1) / 2, scale: fit, fit };
}

function toScreen(x, y) {
  const v = state.view;
  return [(x - v.cx) * v.scale + canvas.width / 2, canvas.height / 2 - (y - v.cy) * v.scale];
}

function toData(sx, sy) {
  const v = state.view;
  return [v.cx + (sx - canvas.width / 2) / v.scale, v.cy - (sy - canvas.height / 2) / v.scale];
}

function pointRadius() {
  const n = state.ids.length;
  const base = n < 2000 ? 4 : n < 10000 ? 3 : 2;
  const zoom = state.view.scale / state.view.fit;
  return Math.round((base + (zoom > 4 ? 1 : 0) + (zoom > 16 ? 1 : 0)) * ratio());
}

const discs = new Map();
/** Offsets (in pixels of the buffer) that make a disc of radius r around a centre pixel. */
function disc(r, width) {
  const key = `${r}/${width}`;
  if (!discs.has(key)) {
    const offsets = [];
    for (let dy = -r; dy <= r; dy++) for (let dx = -r; dx <= r; dx++) {
      if (dx * dx + dy * dy <= r * r + r * 0.8) offsets.push(dy * width + dx);
    }
    discs.set(key, Int32Array.from(offsets));
  }
  return discs.get(key);
}

function scheduleDraw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => { drawQueued = false; draw(); });
}

function marked() {
  return state.results.length > 0 || state.selected !== null || state.draft !== null;
}

function draw() {
  resize();
  const width = canvas.width;
  const height = canvas.height;
  pixels.fill(pixel(BACKGROUND));
  const r = pointRadius();
  const offsets = disc(r, width);
  const colours = marked() ? state.dimmed : state.colours;
  const v = state.view;
  const [ox, oy] = [width / 2 - v.cx * v.scale, height / 2 + v.cy * v.scale];
  const { xs, ys } = state;
  for (let i = 0; i < xs.length; i++) {
    const sx = Math.round(xs[i] * v.scale + ox);
    const sy = Math.round(oy - ys[i] * v.scale);
    if (sx < r || sy < r || sx >= width - r || sy >= height - r) continue;
    const centre = sy * width + sx;
    const colour = colours[i];
    for (let k = 0; k < offsets.length; k++) pixels[centre + offsets[k]] = colour;
  }
  context.putImageData(image, 0, 0);
  drawMarks(r);
  if (state.timings.firstPaint === undefined && xs.length) {
    state.timings.firstPaint = performance.now();
    canvas.dataset.painted = String(xs.length);
  }
  $("#zoom-level").textContent = `${(v.scale / v.fit).toFixed(1)}×`;
}

function ring(x, y, radius, stroke, width = 2, fill = null) {
  context.beginPath();
  context.arc(x, y, radius, 0, 2 * Math.PI);
  if (fill) { context.fillStyle = fill; context.fill(); }
  context.strokeStyle = stroke;
  context.lineWidth = width * ratio();
  context.stroke();
}

function screenOfRow(row) { return toScreen(state.xs[row], state.ys[row]); }

/** Lines from a paper (or a draft) to its nearest papers, which are ringed in orange. */
function drawNeighbours(sx, sy, hits, r) {
  const k = ratio();
  const rows = hits.map((hit) => state.row.get(hit.id)).filter((row) => row !== undefined);
  context.strokeStyle = "rgba(29, 35, 41, .45)";
  context.lineWidth = k;
  for (const row of rows) {
    const [x, y] = screenOfRow(row);
    context.beginPath(); context.moveTo(sx, sy); context.lineTo(x, y); context.stroke();
  }
  for (const row of rows) ring(...screenOfRow(row), r + 2 * k, "#f58518", 2, state.hexes[row]);
}

function drawMarks(r) {
  const k = ratio();
  context.font = `${11 * k}px system-ui, sans-serif`;
  context.textBaseline = "middle";
  state.results.forEach((hit, rank) => {
    const row = state.row.get(hit.id);
    if (row === undefined) return;
    const [x, y] = screenOfRow(row);
    ring(x, y, r + 2 * k, "#1d2329", 1.5, state.hexes[row]);
    if (rank < 10) {
      context.fillStyle = "#1d2329";
      context.fillText(String(rank + 1), x + r + 4 * k, y - r - 2 * k);
    }
  });
  const selected = state.selected === null ? undefined : state.row.get(state.selected);
  if (selected !== undefined) {
    const [sx, sy] = screenOfRow(selected);
    drawNeighbours(sx, sy, state.neighbours, r);
    ring(sx, sy, r + 7 * k, "#d62728", 3);
    ring(sx, sy, r + 1 * k, "#1d2329", 1, state.hexes[selected]);
  }
  if (state.draft) drawNeighbours(...toScreen(state.draft.x, state.draft.y), state.draftNeighbours, r);
  if (state.position) {
    const [x, y] = toScreen(state.position.x, state.position.y);
    context.strokeStyle = "#1d2329";
    context.lineWidth = 2 * k;
    context.beginPath();
    context.moveTo(x - 9 * k, y); context.lineTo(x + 9 * k, y); context.moveTo(x, y - 9 * k); context.lineTo(x, y + 9 * k);
    context.stroke();
  }
  if (state.draft) {
    const [x, y] = toScreen(state.draft.x, state.draft.y);
    const s = 8 * k;
    context.beginPath();
    context.moveTo(x, y - s); context.lineTo(x + s, y); context.lineTo(x, y + s); context.lineTo(x - s, y);
    context.closePath();
    context.fillStyle = "#7a4cc2"; context.fill();
    context.strokeStyle = "#fff"; context.lineWidth = 1.5 * k; context.stroke();
    context.fillStyle = "#1d2329";
    context.fillText("your draft", x + s + 3 * k, y);
  }
  if (hovered !== null) ring(...screenOfRow(hovered), r + 3 * k, "#1d2329", 2);
}

// ----- the spatial grid ------------------------------------------------------------------------------------

const grid = { size: 1, x0: 0, y0: 0, cell: 1, start: new Uint32Array(1), items: new Uint32Array(0) };

/** Bucket every point into a uniform grid of about four points per cell (counting sort: two passes). */
function buildGrid() {
  const n = state.ids.length;
  const b = bounds();
  const size = Math.max(1, Math.ceil(Math.sqrt(n / 4)));
  const cell = Math.max(b.x1 - b.x0, b.y1 - b.y0, 1e-9) / size * (1 + 1e-9);
  const cellOf = new Uint32Array(n);
  const start = new Uint32Array(size * size + 1);
  for (let i = 0; i < n; i++) {
    const cx = Math.min(size - 1, Math.floor((state.xs[i] - b.x0) / cell));
    const cy = Math.min(size - 1, Math.floor((state.ys[i] - b.y0) / cell));
    cellOf[i] = cy * size + cx;
    start[cellOf[i] + 1] += 1;
  }
  for (let c = 0; c < size * size; c++) start[c + 1] += start[c];
  const fill = start.slice(0, size * size);
  const items = new Uint32Array(n);
  for (let i = 0; i < n; i++) items[fill[cellOf[i]]++] = i;
  Object.assign(grid, { size, x0: b.x0, y0: b.y0, cell, start, items });
}

/** Call visit(row) for every point in the cells overlapping the square of half-side `reach` around (x, y). */
function visitNear(x, y, reach, visit) {
  const clamp = (v) => Math.min(grid.size - 1, Math.max(0, v));
  const [c0, c1] = [clamp(Math.floor((x - reach - grid.x0) / grid.cell)), clamp(Math.floor((x + reach - grid.x0) / grid.cell))];
  const [r0, r1] = [clamp(Math.floor((y - reach - grid.y0) / grid.cell)), clamp(Math.floor((y + reach - grid.y0) / grid.cell))];
  for (let cy = r0; cy <= r1; cy++) for (let cx = c0; cx <= c1; cx++) {
    const c = cy * grid.size + cx;
    for (let k = grid.start[c]; k < grid.start[c + 1]; k++) visit(grid.items[k]);
  }
}

/** The point drawn under a screen position (within its radius plus a little), or null. */
function pointAt(sx, sy) {
  const [x, y] = toData(sx, sy);
  const reach = (pointRadius() + 3 * ratio()) / state.view.scale;
  let best = null;
  let bestDistance = reach * reach;
  visitNear(x, y, reach, (row) => {
    const d = (state.xs[row] - x) ** 2 + (state.ys[row] - y) ** 2;
    if (d <= bestDistance) { best = row; bestDistance = d; }
  });
  return best;
}

/** The k points nearest to a map position: squares of cells grow until the k-th distance is inside them. */
function nearestTo(x, y, k) {
  const n = state.ids.length;
  let reach = grid.cell;
  for (;;) {
    const found = [];
    visitNear(x, y, reach, (row) => found.push([(state.xs[row] - x) ** 2 + (state.ys[row] - y) ** 2, row]));
    found.sort((a, b) => a[0] - b[0]);
    if (found.length >= Math.min(k, n) && (found.length === n || Math.sqrt(found[Math.min(k, n) - 1][0]) <= reach)) {
      return found.slice(0, k).map(([, row]) => row);
    }
    reach *= 2;
  }
}

// ----- moving around ----------------------------------------------------------------------------------------

let hovered = null;
let drag = null;

function eventPoint(event) {
  const box = canvas.getBoundingClientRect();
  return [(event.clientX - box.left) * ratio(), (event.clientY - box.top) * ratio()];
}

function zoomAt(sx, sy, factor) {
  const v = state.view;
  const [x, y] = toData(sx, sy);
  v.scale = Math.min(v.fit * 4000, Math.max(v.fit * 0.5, v.scale * factor));
  v.cx = x - (sx - canvas.width / 2) / v.scale;
  v.cy = y + (sy - canvas.height / 2) / v.scale;
  scheduleDraw();
  writeUrl();
}

function centreOn(row) {
  const [sx, sy] = screenOfRow(row);
  const margin = 40 * ratio();
  if (sx < margin || sy < margin || sx > canvas.width - margin || sy > canvas.height - margin) {
    state.view.cx = state.xs[row];
    state.view.cy = state.ys[row];
    writeUrl();
  }
}

canvas.addEventListener("wheel", (event) => {
  event.preventDefault();
  zoomAt(...eventPoint(event), Math.exp(-event.deltaY * 0.002));
}, { passive: false });

canvas.addEventListener("pointerdown", (event) => {
  drag = { start: eventPoint(event), last: eventPoint(event), moved: false };
  canvas.setPointerCapture(event.pointerId);
});

canvas.addEventListener("pointermove", (event) => {
  const [sx, sy] = eventPoint(event);
  if (drag) {
    const [dx, dy] = [sx - drag.last[0], sy - drag.last[1]];
    drag.moved = drag.moved || Math.hypot(sx - drag.start[0], sy - drag.start[1]) > 4 * ratio();
    if (drag.moved) {
      canvas.classList.add("dragging");
      state.view.cx -= dx / state.view.scale;
      state.view.cy += dy / state.view.scale;
      drag.last = [sx, sy];
      hideTooltip();
      scheduleDraw();
    }
    return;
  }
  hover(pointAt(sx, sy), event);
});

canvas.addEventListener("pointerup", (event) => {
  const finished = drag;
  drag = null;
  canvas.classList.remove("dragging");
  if (!finished) return;
  if (finished.moved) { writeUrl(); return; }
  const [sx, sy] = eventPoint(event);
  const row = pointAt(sx, sy);
  if (row !== null) selectPaper(state.ids[row]);
  else { const [x, y] = toData(sx, sy); choosePosition(x, y); }
});

canvas.addEventListener("pointerleave", () => { if (!drag) hover(null); });

function hover(row, event) {
  if (row === hovered) { if (row !== null) moveTooltip(event); return; }
  hovered = row;
  scheduleDraw();
  if (row === null) { hideTooltip(); return; }
  const tip = $("#tooltip");
  const id = state.ids[row];
  const label = state.labels ? state.labels[row] : null;
  tip.replaceChildren(el("b", {}, titleOf(id)), el("br"), [id, label, roleOf(id)].filter(Boolean).join(" · "));
  tip.hidden = false;
  moveTooltip(event);
}

/** What a mark on the map means, for the tooltip of a marked point. */
function roleOf(id) {
  const rank = state.results.findIndex((hit) => hit.id === id);
  if (id === state.selected) return "selected";
  if (rank >= 0) return `result ${rank + 1}`;
  if (state.neighbours.some((hit) => hit.id === id)) return "neighbour of the selected paper";
  return state.draftNeighbours.some((hit) => hit.id === id) ? "near your draft" : null;
}

function moveTooltip(event) {
  const tip = $("#tooltip");
  const box = $("#centre").getBoundingClientRect();
  const x = event.clientX - box.left + 14;
  const y = event.clientY - box.top + 14;
  tip.style.left = `${Math.min(x, box.width - tip.offsetWidth - 4)}px`;
  tip.style.top = `${Math.min(y, box.height - tip.offsetHeight - 4)}px`;
}

function hideTooltip() { $("#tooltip").hidden = true; }

$("#zoom-in").addEventListener("click", () => zoomAt(canvas.width / 2, canvas.height / 2, 1.6));
$("#zoom-out").addEventListener("click", () => zoomAt(canvas.width / 2, canvas.height / 2, 1 / 1.6));
$("#zoom-reset").addEventListener("click", () => { fitView(); scheduleDraw(); writeUrl(); });
$("#colour-by").addEventListener("change", (event) => {
  state.colourBy = event.target.value;
  applyColours();
  scheduleDraw();
  writeUrl();
});
window.addEventListener("resize", scheduleDraw);
// the page writes its own fragment without this event firing; a link pasted over it is another view: open it
window.addEventListener("hashchange", () => location.reload());

// ----- aspect weights ---------------------------------------------------------------------------------------

function weightsSum() { return Object.values(state.weights).reduce((a, b) => a + b, 0); }

/** The weights to send, or null after saying why there are none (every slider at zero). */
function usableWeights() {
  if (state.aspects.length > 1 && weightsSum() <= 0) {
    showMessage("Every aspect weight is 0, so nothing can be ranked: raise at least one slider.");
    return null;
  }
  return { ...state.weights };
}

function buildSliders() {
  const holder = $("#weights");
  holder.replaceChildren();
  const note = $("#weights-note");
  if (state.aspects.length < 2) {
    note.hidden = false;
    note.textContent = "This model has one embedding per paper; aspect weights steer multi-aspect models.";
    return;
  }
  note.hidden = true;
  $("#relayout").hidden = false;
  for (const aspect of state.aspects) {
    const slider = el("input", { type: "range", min: "0", max: "1", step: "0.05", "aria-label": aspect,
                                 dataset: { aspect } });
    slider.value = String(state.weights[aspect] ?? 0);
    slider.addEventListener("input", () => {
      state.weights[aspect] = Number(slider.value);
      showShares();
      writeUrl();
      steered();
    });
    holder.append(el("label", { class: "weight" }, el("span", {}, aspect), slider, el("span", { class: "share" })));
  }
  showShares();
}

function showShares() {
  const total = weightsSum();
  for (const label of document.querySelectorAll("#weights .weight")) {
    const aspect = label.querySelector("input").dataset.aspect;
    label.querySelector(".share").textContent = total > 0 ? `${Math.round(100 * state.weights[aspect] / total)}%` : "–";
  }
}

let steerTimer = null;
/** A slider moved: rank again what is on screen (results, neighbours, a draft's neighbours), once it rests. */
function steered() {
  const lists = { "#results": state.query, "#neighbours": state.selected, "#draft-neighbours": state.draft };
  for (const [list, shown] of Object.entries(lists)) if (shown) busy(list, true);
  clearTimeout(steerTimer);
  steerTimer = setTimeout(() => {
    if (!usableWeights()) { for (const list of Object.keys(lists)) busy(list, false); return; }
    clearMessage();
    if (state.query) runSearch({ keepSelection: true });
    if (state.selected) refreshNeighbours(false);
    if (state.draft) rerankDraft();
  }, 150);
}

$("#relayout").addEventListener("click", () => relayout(usableWeights()));

async function relayout(weights) {
  if (!weights) return;
  const seq = ++sequence.layout;
  setStatus(`laying out ${state.ids.length.toLocaleString()} papers by these weights (a t-SNE run: it takes a while)…`);
  try {
    const data = await api(`${MAP}/layout`, { weights });
    if (seq !== sequence.layout) return;
    state.layoutWeights = weights;
    setPoints(data);
    fitView();
    if (state.draft) await placeDraft(state.draft.text, false);
    scheduleDraw();
    writeUrl();
    showStatus();
  } catch (error) {
    showMessage(`The map could not be laid out: ${error.message}`);
    showStatus();
  }
}

// ----- search and results ----------------------------------------------------------------------------------

$("#search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  runSearch({ keepSelection: false });
});

/** A query naming a paper: `id:X`, or exactly the id of a paper the index holds. */
function paperIdIn(text) {
  if (text.startsWith("id:")) return text.slice(3).trim();
  return state.paperRow.has(text) ? text : null;
}

async function runSearch({ keepSelection }) {
  const text = $("#query").value.trim();
  state.query = text;
  writeUrl();
  const seq = ++sequence.search;
  const weights = text && state.search.on ? usableWeights() : null;
  const id = weights ? paperIdIn(text) : null;
  if (!weights || id === "") {
    if (!text) {
      showResults([], null);
      showMessage("Type words to search for, paste an abstract, or give a paper id (id:…).");
    } else if (!state.search.on) showMessage(state.search.why);
    else if (id === "") showMessage("Give the paper id after id: (for example id:W123).");
    busy("#results", false);
    return;
  }
  setStatus("searching…");
  busy("#results", true);
  try {
    const body = id !== null ? { id, k: RESULTS_K, weights } : { query: text, k: RESULTS_K, weights };
    const data = await api(`${SEARCH}/`, body);
    if (seq !== sequence.search) return;
    clearMessage();
    showResults(data.results, id);
    if (id !== null && !keepSelection) selectPaper(id, { pan: true });
  } catch (error) {
    if (seq !== sequence.search) return;
    showResults([], null);
    showMessage(error.message);
  }
  busy("#results", false);
  showStatus();
}

function showResults(results, nearId) {
  state.results = results;
  const list = $("#results");
  list.replaceChildren(...results.map((hit) => paperItem(hit, { snippet: true })));
  $("#results-empty").hidden = results.length > 0;
  $("#results-heading").textContent = !results.length ? "Results"
    : nearId !== null ? `${results.length} papers nearest to ${nearId}` : `${results.length} papers for “${state.query.slice(0, 60)}”`;
  list.dataset.count = String(results.length);
  scheduleDraw();
}

/** Words of the query, for marking them in snippets. */
function queryTerms() {
  return new Set((state.query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) || []));
}

function withMarks(text) {
  const terms = queryTerms();
  if (!terms.size) return [text];
  return text.split(/([\p{L}\p{N}]+)/u).map((part) => (terms.has(part.toLowerCase()) ? el("mark", {}, part) : part));
}

function similarities(hit) {
  const aspects = Object.keys(hit.similarities || {});
  if (!aspects.length) return null;
  return el("div", { class: "sims" }, aspects.map((aspect) => {
    const value = hit.similarities[aspect];
    const weighted = (state.weights[aspect] ?? 1) > 0;
    return el("span", { class: `sim${weighted ? " weighted" : ""}`, dataset: { aspect } },
      el("b", {}, aspect || "similarity"), ` ${value.toFixed(2)}`,
      el("i", { class: "bar", style: `width: ${Math.round(40 * Math.max(0, value))}px` }));
  }));
}

/** One paper in a list: its title (click to read it), what changed, a snippet and its per-aspect similarities. */
function paperItem(hit, { snippet = false, change = null } = {}) {
  const onMap = state.row.has(hit.id);
  const title = el("a", { class: "title", href: `#sel=${encodeURIComponent(hit.id)}`,
                          onclick: (event) => { event.preventDefault(); selectPaper(hit.id, { pan: true }); } },
                   hit.title || titleOf(hit.id));
  return el("li", { dataset: { id: hit.id } }, title,
    change ? el("span", { class: `change ${change.kind}`, title: change.title }, change.text) : null,
    onMap ? null : el("span", { class: "off-map" }, "(not on the map)"),
    snippet && hit.snippet ? el("div", { class: "snippet" }, withMarks(hit.snippet)) : null,
    similarities(hit));
}

// ----- reading a paper ----------------------------------------------------------------------------------------

function showPanel(kind) {
  $("#reader").dataset.kind = kind;
  $("#reader-empty").hidden = kind !== "none";
  $("#paper").hidden = kind !== "paper";
  $("#position").hidden = kind !== "position";
  $("#landing").hidden = kind !== "draft";
}

async function selectPaper(id, { pan = false } = {}) {
  state.selected = id;
  state.position = null;
  if (state.neighboursOf !== id) { state.neighbours = []; state.neighboursOf = null; }
  const row = state.row.get(id);
  if (pan && row !== undefined) centreOn(row);
  writeUrl();
  scheduleDraw();
  showPanel("paper");
  $("#paper-title").textContent = titleOf(id);
  $("#paper-meta").textContent = id;
  $("#paper-abstract").textContent = "";
  $("#paper-summaries").replaceChildren();
  $("#neighbours").replaceChildren();
  $("#neighbours-dropped").textContent = "";
  if (!state.search.on) {
    $("#paper-abstract").textContent = state.search.why;
    return;
  }
  const seq = ++sequence.paper;
  try {
    const paper = await api(`${SEARCH}/papers/${encodeURIComponent(id)}`);
    if (seq !== sequence.paper) return;
    showPaper(paper);
    await refreshNeighbours(true);
  } catch (error) {
    if (seq !== sequence.paper) return;
    $("#paper-title").textContent = "This paper could not be opened";
    $("#paper-abstract").textContent = error.message;
    showMessage(error.message);
  }
}

function showPaper(paper) {
  $("#paper-title").textContent = paper.title || paper.id;
  const meta = [paper.id, ...Object.entries(paper.columns).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : v}`)];
  $("#paper-meta").textContent = meta.join(" · ");
  $("#paper-abstract").textContent = paper.abstract || "(no abstract is stored for this paper)";
  const holder = $("#paper-summaries");
  if (paper.summaries === null) {
    holder.replaceChildren(el("p", { class: "note" }, `No generated summaries: ${state.summariesWhy}`));
  } else if (!Object.keys(paper.summaries).length) {
    holder.replaceChildren(el("p", { class: "note" }, "No summaries were generated for this paper."));
  } else {
    holder.replaceChildren(...Object.entries(paper.summaries).map(([kind, texts]) =>
      el("details", { open: "", dataset: { kind } }, el("summary", {}, `${kindName(kind)} (${texts.length})`),
        el("ul", {}, texts.map((text) => el("li", {}, text))))));
  }
}

function kindName(kind) {
  if (kind === "summary") return "Generated summaries";
  if (kind === "query") return "Generated queries";
  return kind.startsWith("aspect:") ? `Aspect: ${kind.slice(7)}` : kind;
}

/** The selected paper's neighbours under the current weights, marked with how each moved since the last ranking. */
async function refreshNeighbours(fresh) {
  const id = state.selected;
  const weights = usableWeights();
  if (id === null || !weights || !state.search.on) { busy("#neighbours", false); return; }
  const seq = ++sequence.neighbours;
  busy("#neighbours", true);
  try {
    const data = await api(`${SEARCH}/`, { id, k: NEIGHBOURS_K, weights });
    if (seq !== sequence.neighbours || state.selected !== id) return;
    const before = fresh || state.neighboursOf !== id ? null : state.neighbours.map((hit) => hit.id);
    state.neighbours = data.results;
    state.neighboursOf = id;
    const now = data.results.map((hit) => hit.id);
    $("#neighbours").replaceChildren(...data.results.map((hit, rank) => paperItem(hit, { change: movement(before, hit.id, rank) })));
    const dropped = before ? before.filter((other) => !now.includes(other)) : [];
    $("#neighbours-dropped").textContent = dropped.length
      ? `Left the top ${NEIGHBOURS_K}: ${dropped.map((other) => titleOf(other)).join("; ")}` : "";
    scheduleDraw();
  } catch (error) {
    if (seq === sequence.neighbours) showMessage(error.message);
  }
  if (seq === sequence.neighbours) busy("#neighbours", false);
}

function movement(before, id, rank) {
  if (!before) return null;
  const was = before.indexOf(id);
  if (was < 0) return { kind: "new", text: "new", title: "not among the neighbours before the weights changed" };
  if (was === rank) return null;
  const up = was > rank;
  return { kind: up ? "up" : "down", text: `${up ? "↑" : "↓"}${Math.abs(was - rank)}`, title: `was #${was + 1}` };
}

// ----- asking the empty space ---------------------------------------------------------------------------------

function choosePosition(x, y) {
  state.position = { x, y };
  state.selected = null;
  writeUrl();
  scheduleDraw();
  showPanel("position");
  $("#position-where").textContent = `(${x.toFixed(2)}, ${y.toFixed(2)}) on the map`;
  $("#description").textContent = "";
  const box = $("#describe-box");
  if (state.explain.on) {
    box.replaceChildren(el("button", { id: "describe", type: "button", onclick: () => describe(x, y) },
      "Describe this position"));
  } else {
    box.replaceChildren(el("p", { id: "describe-off", class: "note" }, state.explain.why));
  }
  const near = nearestTo(x, y, NEAREST_K).map((row) => ({ id: state.ids[row], title: titleOf(state.ids[row]) }));
  $("#position-nearest").replaceChildren(...near.map((hit) => paperItem(hit)));
}

async function describe(x, y) {
  const seq = ++sequence.describe;
  const out = $("#description");
  out.textContent = "decoding…";
  delete out.dataset.ready;
  try {
    const body = { x, y, ...(state.layoutWeights ? { weights: state.layoutWeights } : {}) };
    const data = await api(`${MAP}/explain`, body);
    if (seq !== sequence.describe) return;
    out.textContent = Object.entries(data.texts).map(([aspect, text]) => `${aspect || "description"}: ${text}`).join("\n");
    out.dataset.ready = "1";
  } catch (error) {
    if (seq !== sequence.describe) return;
    out.textContent = "";
    showMessage(error.message);
  }
}

// ----- placing a draft -----------------------------------------------------------------------------------------

$("#place").addEventListener("click", () => placeDraft($("#draft").value.trim(), true));
$("#clear-draft").addEventListener("click", () => {
  state.draft = null;
  state.draftNeighbours = [];
  showPanel("none");
  scheduleDraw();
});

function draftNeighbours(text, weights) {
  if (!state.search.on) return Promise.resolve(null);
  return api(`${SEARCH}/`, { query: text, k: NEIGHBOURS_K, weights }).then((data) => data.results);
}

/** Where a draft lands on the shown layout and its nearest papers under the weights; `show` opens it in the
 * reader and brings it into view (a re-layout places it again without). */
async function placeDraft(text, show) {
  if (!text) { showMessage("Paste an abstract first: the draft box is empty."); return; }
  const weights = usableWeights();
  if (!weights) return;
  const seq = ++sequence.draft;
  setStatus("placing the draft…");
  try {
    const placed = api(`${MAP}/place`, { text, ...(state.layoutWeights ? { weights: state.layoutWeights } : {}) });
    // Both requests settle before any message, and the map's refusal is the one shown: with Promise.all the
    // first of two refusals would win, and the same bad draft would read differently from run to run.
    const [whereResult, nearResult] = await Promise.allSettled([placed, draftNeighbours(text, weights)]);
    if (whereResult.status === "rejected") throw whereResult.reason;
    if (nearResult.status === "rejected") throw nearResult.reason;
    const [where, near] = [whereResult.value, nearResult.value];
    if (seq !== sequence.draft) return;
    clearMessage();
    state.draft = { text, x: where.x, y: where.y };
    state.draftNeighbours = near || [];
    if (show) {
      state.selected = null;
      state.position = null;
      const [sx, sy] = toScreen(where.x, where.y);
      if (sx < 0 || sy < 0 || sx > canvas.width || sy > canvas.height) { state.view.cx = where.x; state.view.cy = where.y; }
      showPanel("draft");
      writeUrl();
    }
    showLanding(near);
    scheduleDraw();
  } catch (error) {
    if (seq === sequence.draft) showMessage(`The draft could not be placed: ${error.message}`);
  }
  showStatus();
}

/** A slider moved: the draft stays where it landed (the layout is the same); its nearest papers are ranked again. */
async function rerankDraft() {
  const weights = usableWeights();
  if (!state.draft || !weights) { busy("#draft-neighbours", false); return; }
  const seq = ++sequence.draft;
  try {
    const near = await draftNeighbours(state.draft.text, weights);
    if (seq !== sequence.draft) return;
    state.draftNeighbours = near || [];
    showLanding(near);
    scheduleDraw();
  } catch (error) {
    if (seq === sequence.draft) showMessage(error.message);
  }
  if (seq === sequence.draft) busy("#draft-neighbours", false);
}

/** The landing panel: where the draft is, the aspects it is closest on (mean similarity to its five nearest
 * papers on each aspect) and its nearest papers; without search only the first. */
function showLanding(results) {
  const { x, y } = state.draft;
  const beside = titleOf(state.ids[nearestTo(x, y, 1)[0]]);
  $("#landing-where").textContent = `Lands at (${x.toFixed(2)}, ${y.toFixed(2)}), beside “${beside}”.`;
  const aspects = $("#draft-aspects");
  if (!results) {
    aspects.replaceChildren(el("li", { class: "note" }, state.search.why));
    $("#draft-neighbours").replaceChildren();
    return;
  }
  const top = results.slice(0, 5);
  const names = Object.keys(top[0] ? top[0].similarities : {});
  const closeness = names.map((aspect) => [aspect, top.reduce((sum, hit) => sum + hit.similarities[aspect], 0) / top.length]);
  closeness.sort((a, b) => b[1] - a[1]);
  aspects.replaceChildren(...closeness.map(([aspect, value]) => el("li", { dataset: { aspect } },
    el("b", {}, aspect || "embedding"), ` ${value.toFixed(2)} mean similarity to its ${top.length} nearest`,
    el("i", { class: "bar", style: `width: ${Math.round(60 * Math.max(0, value))}px` }))));
  $("#draft-neighbours").replaceChildren(...results.map((hit) => paperItem(hit, { snippet: true })));
}

// ----- loading -------------------------------------------------------------------------------------------------

function setPoints(data) {
  state.ids = data.ids;
  state.xs = Float32Array.from(data.x);
  state.ys = Float32Array.from(data.y);
  state.labels = data.labels;
  state.row = new Map(data.ids.map((id, row) => [id, row]));
  buildGrid();
  applyColours();
}

function colourOptions() {
  const select = $("#colour-by");
  const names = [...(state.labels ? ["label"] : []), ...Object.keys(state.columns), "none"];
  select.replaceChildren(...names.map((name) => el("option", { value: name }, name)));
  if (!names.includes(state.colourBy)) state.colourBy = names[0];
  select.value = state.colourBy;
}

function showStatus() {
  const parts = [`${state.ids.length.toLocaleString()} papers on the map`];
  if (state.aspects.length > 1) parts.push(`aspects: ${state.aspects.join(", ")}`);
  if (state.layoutWeights) parts.push("laid out by chosen weights");
  parts.push(state.explain.on ? "positions can be described" : "no decoder");
  if (!state.search.on) parts.push("search off");
  setStatus(parts.join(" · "));
}

async function start() {
  const mapHealth = api(`${MAP}/health`).catch((error) => ({ explain: false, explain_disabled: error.message }));
  const searchHealth = api(`${SEARCH}/health`).catch((error) => ({ error }));
  const points = await api(`${MAP}/points`);
  state.timings.points = performance.now();
  state.aspects = points.aspects;
  state.weights = { ...points.weights };
  setPoints(points);
  resize();
  fitView();
  draw();

  const [mapStatus, searchStatus] = await Promise.all([mapHealth, searchHealth]);
  state.explain = { on: Boolean(mapStatus.explain), why: mapStatus.explain_disabled || "" };
  if (searchStatus.error) {
    const why = searchStatus.error.status === 404
      ? `Search is not served at ${SEARCH}: deploy the search app beside the map (semcse serve --app search --index …) to search and read papers.`
      : `Search is unavailable: ${searchStatus.error.message}`;
    state.search = { on: false, why };
    $("#query").disabled = true;
    $("#search-button").disabled = true;
    $("#query").placeholder = why;
  } else {
    state.search = { on: true, why: "" };
    state.summariesWhy = searchStatus.summaries_disabled || "";
    try {
      const listing = await api(`${SEARCH}/papers`);
      state.titles = listing.titles;
      state.columns = listing.columns;
      state.paperRow = new Map(listing.ids.map((id, row) => [id, row]));
      state.timings.papers = performance.now();
    } catch (error) {
      showMessage(`Paper titles could not be loaded: ${error.message}`);
    }
  }
  await restore(readUrl());
  showStatus();
  document.body.dataset.ready = "1";
}

/** Reopen the view a link describes: weights, layout, colouring, viewport, query, then selection or position. */
async function restore(params) {
  const weights = decodeWeights(params.get("w"));
  if (Object.keys(weights).length) state.weights = { ...state.weights, ...weights };
  buildSliders();
  const layout = decodeWeights(params.get("lw"));
  if (Object.keys(layout).length) await relayout(layout);
  state.colourBy = params.get("c") || state.colourBy;
  colourOptions();
  applyColours();
  const view = (params.get("v") || "").split(",").map(Number);
  if (view.length === 3 && view.every(Number.isFinite) && view[2] > 0) {
    Object.assign(state.view, { cx: view[0], cy: view[1], scale: state.view.fit * view[2] });
  }
  scheduleDraw();
  const query = params.get("q");
  if (query) {
    $("#query").value = query;
    await runSearch({ keepSelection: params.has("sel") });
  }
  const selected = params.get("sel");
  const at = (params.get("at") || "").split(",").map(Number);
  if (selected) await selectPaper(selected);
  else if (at.length === 2 && at.every(Number.isFinite)) choosePosition(at[0], at[1]);
  writeUrl();
}

// for tests and the console: the state (its `timings` say when the first frame was drawn), where a paper is
// drawn (CSS pixels in the canvas), and one frame drawn now
window.explorer = {
  state,
  redraw: draw,
  screenOf(id) {
    const row = state.row.get(id);
    if (row === undefined) return null;
    const [x, y] = screenOfRow(row);
    return { x: x / ratio(), y: y / ratio() };
  },
};

start().catch((error) => {
  showMessage(`The map could not be loaded: ${error.message}`);
  setStatus("not loaded");
});
