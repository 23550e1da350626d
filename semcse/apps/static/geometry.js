// Where things are on the map. A layout is the points (ids, coordinates, labels) with their bounds and
// a uniform grid, through which hover, click and "nearest papers" find points without scanning them
// all. A view is the canvas's size in device pixels, the map position at its centre and its scale (pixels
// per map unit; `fit` is the scale at which the whole layout fits, and zoom levels are relative to it).
// Every function here is pure: views are replaced, not changed.

const MARGIN = 0.92; // the share of the canvas the fitted layout spans
const MIN_ZOOM = 0.5;
const MAX_ZOOM = 4000;

function bounds(xs, ys) {
  let [x0, x1, y0, y1] = [Infinity, -Infinity, Infinity, -Infinity];
  for (let i = 0; i < xs.length; i++) {
    x0 = Math.min(x0, xs[i]); x1 = Math.max(x1, xs[i]);
    y0 = Math.min(y0, ys[i]); y1 = Math.max(y1, ys[i]);
  }
  return { x0, x1, y0, y1 };
}

/** The layout from the map app's points ({ids, x, y, labels}): coordinates as Float32Arrays, each id's row, the grid. */
export function layoutFrom(points) {
  const xs = Float32Array.from(points.x);
  const ys = Float32Array.from(points.y);
  const box = bounds(xs, ys);
  const row = new Map(points.ids.map((id, i) => [id, i]));
  return { ids: points.ids, xs, ys, labels: points.labels, row, bounds: box, grid: buildGrid(xs, ys, box) };
}

// ----- the view ---------------------------------------------------------------------------------------------

export const zoomOf = (view) => view.scale / view.fit;

/** The scale at which bounds `box` fit a canvas of this size with a margin. */
function fitScale(box, width, height) {
  return MARGIN * Math.min(width / Math.max(box.x1 - box.x0, 1e-9), height / Math.max(box.y1 - box.y0, 1e-9));
}

/** The view of the whole layout: centred on its bounds, at zoom 1. */
export function fittedView(view, layout) {
  const box = layout.bounds;
  const fit = fitScale(box, view.width, view.height);
  return { ...view, cx: (box.x0 + box.x1) / 2, cy: (box.y0 + box.y1) / 2, scale: fit, fit };
}

/** The view on a canvas of a new size: the same centre and zoom level (`fit` follows the size). */
export function resizedView(view, width, height, layout) {
  if (!layout.ids.length) return { ...view, width, height };
  const fit = fitScale(layout.bounds, width, height);
  return { ...view, width, height, fit, scale: fit * zoomOf(view) };
}

/** The view at zoom level `zoom`, centred on (cx, cy). */
export function viewAt(view, { cx, cy, zoom }) {
  return { ...view, cx, cy, scale: view.fit * zoom };
}

export function toScreen(view, x, y) {
  return [(x - view.cx) * view.scale + view.width / 2, view.height / 2 - (y - view.cy) * view.scale];
}

export function toData(view, sx, sy) {
  return [view.cx + (sx - view.width / 2) / view.scale, view.cy - (sy - view.height / 2) / view.scale];
}

/** The view zoomed by `factor` about a screen point, which stays over the same map position (zoom kept in bounds). */
export function zoomedAt(view, sx, sy, factor) {
  const [x, y] = toData(view, sx, sy);
  const scale = Math.min(view.fit * MAX_ZOOM, Math.max(view.fit * MIN_ZOOM, view.scale * factor));
  return { ...view, scale, cx: x - (sx - view.width / 2) / scale, cy: y + (sy - view.height / 2) / scale };
}

/** The view dragged by (dx, dy) screen pixels: the map moves with the pointer. */
export function pannedBy(view, dx, dy) {
  return { ...view, cx: view.cx - dx / view.scale, cy: view.cy + dy / view.scale };
}

/** Whether a map position is drawn at least `margin` pixels inside the canvas's edges. */
export function isInView(view, x, y, margin = 0) {
  const [sx, sy] = toScreen(view, x, y);
  return sx >= margin && sy >= margin && sx <= view.width - margin && sy <= view.height - margin;
}

/** The view moved to centre a map position, unless it is in view already. */
export function broughtIntoView(view, x, y, margin = 0) {
  return isInView(view, x, y, margin) ? view : { ...view, cx: x, cy: y };
}

/** The radius of a drawn point in device pixels: smaller for bigger maps, a little larger when zoomed far in. */
export function pointRadius(n, zoom, ratio) {
  const base = n < 2000 ? 4 : n < 10000 ? 3 : 2;
  return Math.round((base + (zoom > 4 ? 1 : 0) + (zoom > 16 ? 1 : 0)) * ratio);
}

const discs = new Map();
/** Offsets (in pixels of a buffer `width` wide) that make a disc of radius r around a centre pixel. */
export function discOffsets(r, width) {
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

// ----- the spatial grid -------------------------------------------------------------------------------------

/** Bucket every point into a uniform grid of about four points per cell (counting sort: two passes). */
function buildGrid(xs, ys, box) {
  const n = xs.length;
  const size = Math.max(1, Math.ceil(Math.sqrt(n / 4)));
  const cell = Math.max(box.x1 - box.x0, box.y1 - box.y0, 1e-9) / size * (1 + 1e-9);
  const cellOf = new Uint32Array(n);
  const start = new Uint32Array(size * size + 1);
  for (let i = 0; i < n; i++) {
    const cx = Math.min(size - 1, Math.floor((xs[i] - box.x0) / cell));
    const cy = Math.min(size - 1, Math.floor((ys[i] - box.y0) / cell));
    cellOf[i] = cy * size + cx;
    start[cellOf[i] + 1] += 1;
  }
  for (let c = 0; c < size * size; c++) start[c + 1] += start[c];
  const fill = start.slice(0, size * size);
  const items = new Uint32Array(n);
  for (let i = 0; i < n; i++) items[fill[cellOf[i]]++] = i;
  return { size, x0: box.x0, y0: box.y0, cell, start, items };
}

/** Call visit(row) for every point in the cells overlapping the square of half-side `reach` around (x, y). */
function visitNear({ grid }, x, y, reach, visit) {
  const clamp = (v) => Math.min(grid.size - 1, Math.max(0, v));
  const [c0, c1] = [clamp(Math.floor((x - reach - grid.x0) / grid.cell)), clamp(Math.floor((x + reach - grid.x0) / grid.cell))];
  const [r0, r1] = [clamp(Math.floor((y - reach - grid.y0) / grid.cell)), clamp(Math.floor((y + reach - grid.y0) / grid.cell))];
  for (let cy = r0; cy <= r1; cy++) for (let cx = c0; cx <= c1; cx++) {
    const c = cy * grid.size + cx;
    for (let k = grid.start[c]; k < grid.start[c + 1]; k++) visit(grid.items[k]);
  }
}

/** The row of the point nearest to (x, y) within distance `reach`, or null. */
export function pointNear(layout, x, y, reach) {
  const { xs, ys } = layout;
  let best = null;
  let bestDistance = reach * reach;
  visitNear(layout, x, y, reach, (row) => {
    const d = (xs[row] - x) ** 2 + (ys[row] - y) ** 2;
    if (d <= bestDistance) { best = row; bestDistance = d; }
  });
  return best;
}

/** The rows of the k points nearest to (x, y), nearest first: the square searched doubles until it holds them. */
export function nearestRows(layout, x, y, k) {
  const { xs, ys } = layout;
  const n = xs.length;
  const want = Math.min(k, n);
  for (let reach = layout.grid.cell; ; reach *= 2) {
    const found = [];
    visitNear(layout, x, y, reach, (row) => found.push([(xs[row] - x) ** 2 + (ys[row] - y) ** 2, row]));
    found.sort((a, b) => a[0] - b[0]);
    if (found.length >= want && (found.length === n || Math.sqrt(found[want - 1][0]) <= reach)) {
      return found.slice(0, k).map(([, row]) => row);
    }
  }
}
