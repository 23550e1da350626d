// How numbers read on the page.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  barWidth, countText, legendNumber, mapPosition, shareText, similarityText, zoomText,
} from "../../semcse/apps/static/format.js";

test("positions, zoom levels and similarities have fixed decimals", () => {
  assert.equal(mapPosition(3.14159, -0.005), "(3.14, -0.01)");
  assert.deepEqual([zoomText(1), zoomText(1.6), zoomText(2.56)], ["1.0×", "1.6×", "2.6×"]);
  assert.equal(similarityText(0.8765), "0.88");
});

test("counts are grouped, shares are whole percents or a dash, legend ends keep integers whole", () => {
  assert.equal(countText(40000), (40000).toLocaleString()); // "40,000" in the tests' English locale
  assert.deepEqual([shareText(0), shareText(67), shareText(null)], ["0%", "67%", "–"]);
  assert.deepEqual([legendNumber(1990), legendNumber(0.123456), legendNumber(12345.6)], ["1990", "0.123", "1.23e+4"]);
});

test("a similarity's bar is as wide as the value's share of `full`, never negative", () => {
  assert.deepEqual([barWidth(0.5, 40), barWidth(1, 60), barWidth(-0.2, 40)], [20, 60, 0]);
});
