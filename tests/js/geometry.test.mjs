// The map's geometry: the viewport's transforms, zoom and pan, fitting, and the grid that finds points.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  broughtIntoView, discOffsets, fittedView, isInView, layoutFrom, nearestRows, pannedBy, pointNear, pointRadius,
  resizedView, toData, toScreen, viewAt, zoomOf, zoomedAt,
} from "../../semcse/apps/static/geometry.js";

const CANVAS = { width: 1000, height: 600, cx: 0, cy: 0, scale: 1, fit: 1 };

/** A seeded layout of n points (a small linear congruential generator: the same points every run). */
function randomLayout(n, seed = 7) {
  let value = seed;
  const next = () => { value = (value * 1103515245 + 12345) % 2 ** 31; return value / 2 ** 31; };
  const x = Array.from({ length: n }, () => next() * 80 - 40);
  const y = Array.from({ length: n }, () => next() * 30);
  return layoutFrom({ ids: x.map((_, i) => `p${i}`), x, y, labels: null });
}

const close = (actual, expected, tolerance = 1e-6) =>
  actual.forEach((value, i) => assert.ok(Math.abs(value - expected[i]) <= tolerance, `${actual} ≉ ${expected}`));

test("the whole layout fits the canvas, centred, with a margin, at zoom 1", () => {
  const layout = layoutFrom({ ids: ["a", "b"], x: [-10, 30], y: [5, 15], labels: null });
  const view = fittedView(CANVAS, layout);
  assert.deepEqual([view.cx, view.cy, zoomOf(view)], [10, 10, 1]);
  assert.equal(view.fit, 0.92 * Math.min(1000 / 40, 600 / 10));
  close(toScreen(view, -10, 10), [500 - 0.92 * 500, 300]); // the wider side spans 92% of the canvas
  assert.ok(isInView(view, 30, 15) && isInView(view, -10, 5) && !isInView(view, 40, 10));
});

test("screen and map coordinates are inverse; screen y grows downwards", () => {
  const view = { ...CANVAS, cx: 3, cy: -2, scale: 17.5 };
  close(toData(view, ...toScreen(view, 4.25, 1.5)), [4.25, 1.5]);
  const [, above] = toScreen(view, 3, -1);
  assert.ok(above < view.height / 2);
});

test("zooming keeps the map position under the cursor in place, within 0.5× to 4000×", () => {
  const view = { ...CANVAS, cx: 2, cy: 1, scale: 10, fit: 10 };
  const under = toData(view, 730, 120);
  const zoomed = zoomedAt(view, 730, 120, 1.6);
  assert.equal(zoomOf(zoomed), 1.6);
  close(toData(zoomed, 730, 120), under);
  assert.equal(zoomOf(zoomedAt(view, 0, 0, 1e-6)), 0.5);
  assert.equal(zoomOf(zoomedAt(view, 0, 0, 1e9)), 4000);
  const centre = zoomedAt(view, view.width / 2, view.height / 2, 1 / 1.6); // the zoom buttons
  assert.deepEqual([centre.cx, centre.cy, zoomOf(centre)], [2, 1, 1 / 1.6]);
});

test("a drag moves the map with the pointer", () => {
  const view = { ...CANVAS, cx: 2, cy: 1, scale: 25, fit: 10 };
  const before = toScreen(view, 5, 5);
  const after = toScreen(pannedBy(view, -120, 80), 5, 5);
  close([after[0] - before[0], after[1] - before[1]], [-120, 80]);
});

test("a resized canvas keeps the centre and the zoom level; a link's viewport is a centre and a zoom", () => {
  const layout = randomLayout(50);
  const view = zoomedAt(fittedView(CANVAS, layout), 100, 100, 3);
  const resized = resizedView(view, 500, 900, layout);
  assert.deepEqual([resized.width, resized.height, resized.cx, resized.cy], [500, 900, view.cx, view.cy]);
  close([zoomOf(resized)], [zoomOf(view)]);
  assert.deepEqual(viewAt(view, { cx: 1, cy: 2, zoom: 4 }), { ...view, cx: 1, cy: 2, scale: view.fit * 4 });
});

test("a position off screen (or too near its edge) is brought into view; one in view stays", () => {
  const view = { ...CANVAS, scale: 10, fit: 10 };
  assert.equal(broughtIntoView(view, 45, 0, 40), view); // 450 px right of the centre, 50 from the edge
  assert.deepEqual(broughtIntoView(view, 47, 0, 40), { ...view, cx: 47, cy: 0 });
  assert.deepEqual(broughtIntoView(view, 0, -31), { ...view, cx: 0, cy: -31 });
});

test("the grid finds the k nearest points and the point under the cursor, as a scan of every point does", () => {
  const layout = randomLayout(3000);
  const scan = (x, y) => [...layout.ids.keys()].sort((a, b) =>
    Math.hypot(layout.xs[a] - x, layout.ys[a] - y) - Math.hypot(layout.xs[b] - x, layout.ys[b] - y));
  for (const [x, y] of [[0, 15], [-39, 0.5], [55, 40], [12.3, -8]]) {
    const expected = scan(x, y);
    assert.deepEqual(nearestRows(layout, x, y, 8), expected.slice(0, 8));
    const nearest = expected[0];
    const gap = Math.hypot(layout.xs[nearest] - x, layout.ys[nearest] - y);
    assert.equal(pointNear(layout, x, y, gap + 1e-4), nearest);
    assert.equal(pointNear(layout, x, y, gap * 0.99), null);
  }
  assert.deepEqual(nearestRows(randomLayout(3), 0, 0, 8).length, 3); // fewer points than asked for
});

test("points are smaller on bigger maps and grow when zoomed far in; a disc covers its radius", () => {
  assert.deepEqual([pointRadius(360, 1, 1), pointRadius(5000, 1, 1), pointRadius(40000, 1, 1)], [4, 3, 2]);
  assert.deepEqual([pointRadius(40000, 5, 1), pointRadius(40000, 17, 1), pointRadius(40000, 1, 2)], [3, 4, 4]);
  const width = 100;
  const disc = [...discOffsets(2, width)];
  assert.ok(disc.includes(0) && disc.includes(2) && disc.includes(-2 * width) && !disc.includes(2 * width + 2));
  assert.equal(disc.length, 21); // every offset within r² + 0.8r of the centre
});
