// The map canvas: drawing the points and the marks over them, and the pointer on it (hover shows a
// paper's title, a drag pans, the wheel zooms about the cursor, a click picks a region's name, a paper or
// a position).
//
// Every point is written into one ImageData buffer in a single loop and put on the canvas at once (a
// 40k-point frame takes a few milliseconds, so pan and zoom redraw every frame); the few marked papers
// (results, the selection and its neighbours, a draft) and a clicked position are drawn over it with the
// canvas API. Nothing happens until the entry module calls `attachMap`.

import { BACKGROUND, pixel } from "./colours.js";
import { $, el } from "./dom.js";
import { zoomText } from "./format.js";
import {
  broughtIntoView, discOffsets, fittedView, pannedBy, pointNear, pointRadius, resizedView, toData, toScreen,
  zoomOf, zoomedAt,
} from "./geometry.js";
import { scaleAt, unoverlapped } from "./regions.js";
import { state, titleOf } from "./state.js";

const DRAG_SLOP = 4; // CSS pixels a press moves before it is a drag, not a click
const INK = "#1d2329";
const FILTERED_OUT = pixel("#e9ecef"); // a point the filter leaves out: there, but not to be read
const REGION_PX = 110; // CSS pixels a region spans on screen before its name is drawn (regions.js: scaleAt)

let canvas = null;
let context = null;
let image = null;
let pixels = null;
let drawQueued = false;
let hovered = null; // the row under the pointer
let labelsDrawn = []; // the region names the last frame drew: {name, region, box}, the box in canvas pixels
let drag = null;
let on = null; // the entry module's handlers: pick(id), pickRegion(region), pickPosition(x, y), moved()

const ratio = () => window.devicePixelRatio || 1;

/** Start drawing on `element` and listening to the pointer; `handlers` say what a click and a move do. */
export function attachMap(element, handlers) {
  canvas = element;
  context = canvas.getContext("2d");
  on = handlers;
  canvas.addEventListener("wheel", onWheel, { passive: false });
  canvas.addEventListener("pointerdown", onPointerDown);
  canvas.addEventListener("pointermove", onPointerMove);
  canvas.addEventListener("pointerup", onPointerUp);
  canvas.addEventListener("pointerleave", () => { if (!drag) hover(null); });
  window.addEventListener("resize", scheduleDraw);
}

/** Size the pixel buffer to the canvas as laid out (a resize keeps the zoom level). */
export function resizeCanvas() {
  const width = Math.max(1, Math.round(canvas.clientWidth * ratio()));
  const height = Math.max(1, Math.round(canvas.clientHeight * ratio()));
  if (canvas.width === width && canvas.height === height && image) return;
  canvas.width = width;
  canvas.height = height;
  image = context.createImageData(width, height);
  pixels = new Uint32Array(image.data.buffer);
  state.view = resizedView(state.view, width, height, state.layout);
}

export function scheduleDraw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => { drawQueued = false; draw(); });
}

/** One frame: every point, then the marks. */
export function draw() {
  resizeCanvas();
  const { view, layout } = state;
  const r = pointRadius(layout.ids.length, zoomOf(view), ratio());
  drawPoints(r);
  labelsDrawn = [];
  if (state.showRegions) drawRegionNames();
  drawMarks(r);
  if (state.timings.firstPaint === undefined && layout.ids.length) {
    state.timings.firstPaint = performance.now();
    canvas.dataset.painted = String(layout.ids.length);
  }
  $("#zoom-level").textContent = zoomText(zoomOf(view));
}

function marked() {
  return state.results.length > 0 || state.selected !== null || state.draft !== null;
}

function drawPoints(r) {
  const { width, height } = canvas;
  const { view, layout: { xs, ys } } = state;
  const offsets = discOffsets(r, width);
  const colours = marked() ? state.colouring.dimmed : state.colouring.colours;
  const { kept } = state;
  const [ox, oy] = [width / 2 - view.cx * view.scale, height / 2 + view.cy * view.scale];
  pixels.fill(pixel(BACKGROUND));
  for (let i = 0; i < xs.length; i++) {
    const sx = Math.round(xs[i] * view.scale + ox);
    const sy = Math.round(oy - ys[i] * view.scale);
    if (sx < r || sy < r || sx >= width - r || sy >= height - r) continue;
    const centre = sy * width + sx;
    const colour = kept && !kept[i] ? FILTERED_OUT : colours[i];
    for (let k = 0; k < offsets.length; k++) pixels[centre + offsets[k]] = colour;
  }
  context.putImageData(image, 0, 0);
}

/** The names of the regions at the scale that fits the zoom, largest first, none over another. */
function drawRegionNames() {
  const k = ratio();
  const scale = scaleAt(state.regions, state.view.scale, REGION_PX * k);
  if (scale < 0) return;
  const regions = state.regions[scale];
  context.font = `600 ${12 * k}px system-ui, sans-serif`;
  context.textAlign = "center";
  context.textBaseline = "middle";
  const texts = regions.map((region) => region.words.join(" · "));
  const boxes = regions.map((region, i) => {
    const [x, y] = toScreen(state.view, region.x, region.y);
    const half = context.measureText(texts[i]).width / 2 + 4 * k;
    const box = { left: x - half, right: x + half, top: y - 9 * k, bottom: y + 9 * k, x, y };
    return box.left < 0 || box.top < 0 || box.right > canvas.width || box.bottom > canvas.height ? null : box;
  });
  context.lineJoin = "round";
  context.lineWidth = 4 * k;
  context.strokeStyle = "rgba(251, 252, 253, .92)";
  context.fillStyle = INK;
  const shown = unoverlapped(boxes);
  for (const i of shown) {
    context.strokeText(texts[i], boxes[i].x, boxes[i].y);
    context.fillText(texts[i], boxes[i].x, boxes[i].y);
  }
  context.textAlign = "start";
  labelsDrawn = shown.map((i) => ({ name: texts[i], region: regions[i], box: boxes[i] }));
}

/** The region names the last frame drew (for tests and the console). */
export const regionNamesDrawn = () => labelsDrawn.map((label) => label.name);

/** The drawn region name at a canvas pixel, or null: a name is drawn over the points, so a click on it is its. */
function labelAt(sx, sy) {
  return labelsDrawn.find(({ box }) => sx >= box.left && sx <= box.right && sy >= box.top && sy <= box.bottom) ?? null;
}

/** Where the last frame drew each region name: {name, left, top, right, bottom} in CSS pixels of the canvas (as
 * `screenOf` gives them), for tests. */
export function regionLabelsDrawn() {
  const k = ratio();
  return labelsDrawn.map(({ name, box }) => ({ name, left: box.left / k, top: box.top / k, right: box.right / k, bottom: box.bottom / k }));
}

const screenOfRow = (row) => toScreen(state.view, state.layout.xs[row], state.layout.ys[row]);

function ring(x, y, radius, stroke, width = 2, fill = null) {
  context.beginPath();
  context.arc(x, y, radius, 0, 2 * Math.PI);
  if (fill) { context.fillStyle = fill; context.fill(); }
  context.strokeStyle = stroke;
  context.lineWidth = width * ratio();
  context.stroke();
}

function drawMarks(r) {
  const k = ratio();
  context.font = `${11 * k}px system-ui, sans-serif`;
  context.textBaseline = "middle";
  drawResults(r, k);
  const selected = state.selected === null ? undefined : state.layout.row.get(state.selected);
  if (selected !== undefined) {
    const [sx, sy] = screenOfRow(selected);
    drawNeighbours(sx, sy, state.neighbours, r);
    ring(sx, sy, r + 7 * k, "#d62728", 3);
    ring(sx, sy, r + 1 * k, INK, 1, state.colouring.hexes[selected]);
  }
  if (state.draft) drawNeighbours(...toScreen(state.view, state.draft.x, state.draft.y), state.draftNeighbours, r);
  if (state.position) drawCross(...toScreen(state.view, state.position.x, state.position.y), k);
  if (state.draft) drawDraft(...toScreen(state.view, state.draft.x, state.draft.y), k);
  if (hovered !== null) ring(...screenOfRow(hovered), r + 3 * k, INK, 2);
}

/** The results ringed, the first ten numbered by rank. */
function drawResults(r, k) {
  state.results.forEach((hit, rank) => {
    const row = state.layout.row.get(hit.id);
    if (row === undefined) return;
    const [x, y] = screenOfRow(row);
    ring(x, y, r + 2 * k, INK, 1.5, state.colouring.hexes[row]);
    if (rank < 10) {
      context.fillStyle = INK;
      context.fillText(String(rank + 1), x + r + 4 * k, y - r - 2 * k);
    }
  });
}

/** Lines from a paper (or a draft) to its nearest papers, which are ringed in orange. */
function drawNeighbours(sx, sy, hits, r) {
  const k = ratio();
  const rows = hits.map((hit) => state.layout.row.get(hit.id)).filter((row) => row !== undefined);
  context.strokeStyle = "rgba(29, 35, 41, .45)";
  context.lineWidth = k;
  for (const row of rows) {
    const [x, y] = screenOfRow(row);
    context.beginPath(); context.moveTo(sx, sy); context.lineTo(x, y); context.stroke();
  }
  for (const row of rows) ring(...screenOfRow(row), r + 2 * k, "#f58518", 2, state.colouring.hexes[row]);
}

/** A clicked position: a cross. */
function drawCross(x, y, k) {
  context.strokeStyle = INK;
  context.lineWidth = 2 * k;
  context.beginPath();
  context.moveTo(x - 9 * k, y); context.lineTo(x + 9 * k, y); context.moveTo(x, y - 9 * k); context.lineTo(x, y + 9 * k);
  context.stroke();
}

/** A placed draft: a purple diamond, labelled. */
function drawDraft(x, y, k) {
  const s = 8 * k;
  context.beginPath();
  context.moveTo(x, y - s); context.lineTo(x + s, y); context.lineTo(x, y + s); context.lineTo(x - s, y);
  context.closePath();
  context.fillStyle = "#7a4cc2"; context.fill();
  context.strokeStyle = "#fff"; context.lineWidth = 1.5 * k; context.stroke();
  context.fillStyle = INK;
  context.fillText("your draft", x + s + 3 * k, y);
}

// ----- moving the view ----------------------------------------------------------------------------------

/** Show the whole map. */
export function fitMap() {
  state.view = fittedView(state.view, state.layout);
}

/** Zoom about the canvas's centre (the zoom buttons). */
export function zoomBy(factor) {
  zoomAround(state.view.width / 2, state.view.height / 2, factor);
}

/** Centre the view on a map position that is not at least `margin` CSS pixels inside the canvas. */
export function bringIntoView(x, y, margin = 0) {
  state.view = broughtIntoView(state.view, x, y, margin * ratio());
}

/** Where a paper is drawn, in CSS pixels from the canvas's top left (null when it is not on the map). */
export function screenOf(id) {
  const row = state.layout.row.get(id);
  if (row === undefined) return null;
  const [x, y] = screenOfRow(row);
  return { x: x / ratio(), y: y / ratio() };
}

function zoomAround(sx, sy, factor) {
  state.view = zoomedAt(state.view, sx, sy, factor);
  scheduleDraw();
  on.moved();
}

/** The point drawn under a screen position (within its radius plus a little), or null. */
function rowAt(sx, sy) {
  const [x, y] = toData(state.view, sx, sy);
  const r = pointRadius(state.layout.ids.length, zoomOf(state.view), ratio());
  return pointNear(state.layout, x, y, (r + 3 * ratio()) / state.view.scale);
}

function eventPoint(event) {
  const box = canvas.getBoundingClientRect();
  return [(event.clientX - box.left) * ratio(), (event.clientY - box.top) * ratio()];
}

function onWheel(event) {
  event.preventDefault();
  zoomAround(...eventPoint(event), Math.exp(-event.deltaY * 0.002));
}

function onPointerDown(event) {
  drag = { start: eventPoint(event), last: eventPoint(event), moved: false };
  canvas.setPointerCapture(event.pointerId);
}

function onPointerMove(event) {
  const [sx, sy] = eventPoint(event);
  if (!drag) {
    const overName = labelAt(sx, sy) !== null; // a name is clicked as itself, not as the points under it
    canvas.classList.toggle("over-name", overName);
    hover(overName ? null : rowAt(sx, sy), event);
    return;
  }
  drag.moved = drag.moved || Math.hypot(sx - drag.start[0], sy - drag.start[1]) > DRAG_SLOP * ratio();
  if (!drag.moved) return;
  canvas.classList.add("dragging");
  state.view = pannedBy(state.view, sx - drag.last[0], sy - drag.last[1]);
  drag.last = [sx, sy];
  hideTooltip();
  scheduleDraw();
}

function onPointerUp(event) {
  const finished = drag;
  drag = null;
  canvas.classList.remove("dragging");
  if (!finished) return;
  if (finished.moved) { on.moved(); return; }
  const [sx, sy] = eventPoint(event);
  const label = labelAt(sx, sy);
  const row = label ? null : rowAt(sx, sy);
  if (label) on.pickRegion(label.region);
  else if (row !== null) on.pick(state.layout.ids[row]);
  else on.pickPosition(...toData(state.view, sx, sy));
}

// ----- hover --------------------------------------------------------------------------------------------

function hover(row, event) {
  if (row === hovered) { if (row !== null) moveTooltip(event); return; }
  hovered = row;
  scheduleDraw();
  if (row === null) { hideTooltip(); return; }
  const id = state.layout.ids[row];
  const label = state.layout.labels ? state.layout.labels[row] : null;
  $("#tooltip").replaceChildren(el("b", {}, titleOf(state, id)), el("br"),
    [id, label, roleOf(state, id)].filter(Boolean).join(" · "));
  $("#tooltip").hidden = false;
  moveTooltip(event);
}

/** What a mark on the map means, for the tooltip of a marked point (null for an unmarked one). */
export function roleOf({ results, selected, neighbours, draftNeighbours }, id) {
  const rank = results.findIndex((hit) => hit.id === id);
  if (id === selected) return "selected";
  if (rank >= 0) return `result ${rank + 1}`;
  if (neighbours.some((hit) => hit.id === id)) return "neighbour of the selected paper";
  return draftNeighbours.some((hit) => hit.id === id) ? "near your draft" : null;
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
