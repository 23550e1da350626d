// The map's colours: categories from the palette, numbers along the ramp, missing values grey, and the legend.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  MISSING, OTHER, PALETTE, RAMP, colourChoices, colourColumn, colourPoints, pixel, ramp,
} from "../../semcse/apps/static/colours.js";
import { layoutFrom } from "../../semcse/apps/static/geometry.js";

const pointsOf = (ids, labels = null) => layoutFrom({ ids, x: ids.map(() => 0), y: ids.map(() => 0), labels });
const listing = (ids, columns) => ({ titles: ids, columns, row: new Map(ids.map((id, row) => [id, row])) });

test("a colour is one little-endian RGBA pixel; washed, it moves towards white", () => {
  assert.equal(pixel("#4c78a8"), (0xff << 24 | 0xa8 << 16 | 0x78 << 8 | 0x4c) >>> 0);
  assert.equal(pixel("#000000", 0.5), (0xff << 24 | 0x80 << 16 | 0x80 << 8 | 0x80) >>> 0);
  assert.equal(pixel("#ffffff", 0.72), pixel("#ffffff"));
});

test("the ramp runs through its stops, clamped at the ends", () => {
  assert.deepEqual([ramp(0), ramp(0.5), ramp(1)], [RAMP[0], RAMP[2], RAMP[4]]);
  assert.deepEqual([ramp(-3), ramp(7)], [RAMP[0], RAMP[4]]);
  assert.equal(ramp(0.125), "#402a70"); // halfway between the first two stops
});

test("labels are categories, most frequent first; past the palette's size the rest share 'other'", () => {
  const labels = Array.from({ length: 30 }, (_, i) => `topic ${i}`).flatMap((label, i) => Array(30 - i).fill(label));
  const layout = pointsOf(labels.map((_, i) => `p${i}`), labels);
  const column = colourColumn("label", layout, listing([], {}));
  assert.equal(column.names.length, PALETTE.length + 1);
  assert.deepEqual([column.names[0], column.names.at(-1)], ["topic 0", "other"]);
  const { hexes, legend } = colourPoints(column, labels.length);
  assert.deepEqual(legend.entries[0], ["topic 0", PALETTE[0], 30]);
  assert.deepEqual(legend.entries.at(-1), ["other", OTHER, [...Array(10).keys()].reduce((sum, i) => sum + 10 - i, 0)]);
  assert.equal(hexes.at(-1), OTHER);
});

test("a corpus column colours the points the listing has; the others are missing", () => {
  const layout = pointsOf(["a", "b", "c", "d"]);
  const papers = listing(["a", "b", "c"], {
    topic: { kind: "category", categories: ["reefs", "tumours"], codes: [1, 0, 1], other: false },
    year: { kind: "number", values: [1990, null, 2020] },
  });
  const topic = colourPoints(colourColumn("topic", layout, papers), 4);
  assert.deepEqual(topic.hexes, [PALETTE[1], PALETTE[0], PALETTE[1], MISSING]);
  assert.deepEqual(topic.legend, { kind: "category", entries: [["reefs", PALETTE[0], 1], ["tumours", PALETTE[1], 2]] });
  const year = colourPoints(colourColumn("year", layout, papers), 4);
  assert.deepEqual(year.hexes, [RAMP[0], MISSING, RAMP[4], MISSING]);
  assert.deepEqual(year.legend, { kind: "number", low: 1990, high: 2020 });
  assert.deepEqual(colourChoices(layout, papers), ["topic", "year", "none"]);
  assert.deepEqual(colourChoices(pointsOf(["a"], ["x"]), papers), ["label", "topic", "year", "none"]);
  const regions = [[{ x: 0, y: 0, papers: 5, radius: 1, words: ["coral", "reef"] }], []];
  assert.deepEqual(colourChoices(layout, papers, regions), ["region", "topic", "year", "none"]);
  assert.deepEqual(colourChoices(layout, papers, [[], []]), ["topic", "year", "none"], "no named region");
});

test("coloured by nothing, every point has the first colour and there is no legend", () => {
  const layout = pointsOf(["a", "b"]);
  const none = colourPoints(colourColumn("none", layout, listing([], {})), 2);
  assert.deepEqual([none.hexes, none.legend], [[PALETTE[0], PALETTE[0]], null]);
  assert.deepEqual([...none.colours], [pixel(PALETTE[0]), pixel(PALETTE[0])]);
  assert.deepEqual([...none.dimmed], [pixel(PALETTE[0], 0.72), pixel(PALETTE[0], 0.72)]);
});
