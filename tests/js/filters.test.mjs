// A filter by a corpus column: what the controls describe, which points it keeps, its words and its fragment.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  decodeFilter, encodeFilter, filterChoices, filterFrom, filterText, keptRows, valuesOf,
} from "../../semcse/apps/static/filters.js";
import { layoutFrom } from "../../semcse/apps/static/geometry.js";

const YEAR = { kind: "number", values: [1999, 2004, null, 2010] };
const VENUE = { kind: "category", categories: ["Oikos", "Nature", "other"], codes: [0, 1, 2, -1], other: true };
const PAPERS = { titles: [], columns: { year: YEAR, venue: VENUE }, row: new Map(["a", "b", "c", "d"].map((id, i) => [id, i])) };
const LAYOUT = layoutFrom({ ids: ["d", "c", "b", "a", "new"], x: [0, 1, 2, 3, 4], y: [0, 0, 0, 0, 0], labels: null });

test("the controls' text becomes a filter: a range with either bound open, or one listed value", () => {
  assert.deepEqual(filterFrom(YEAR, "year", { min: "2000", max: " " }), { column: "year", min: 2000, max: null });
  assert.deepEqual(filterFrom(YEAR, "year", { min: "2000", max: "2005" }), { column: "year", min: 2000, max: 2005 });
  assert.equal(filterFrom(YEAR, "year", { min: "", max: "" }), null);
  assert.equal(filterFrom(YEAR, "year", { min: "soon" }), null);
  assert.deepEqual(filterFrom(VENUE, "venue", { value: "Nature" }), { column: "venue", values: ["Nature"] });
  assert.equal(filterFrom(VENUE, "venue", { value: "other" }), null, "the rarer values together are no venue");
  assert.equal(filterFrom(undefined, "year", { min: "1" }), null);
});

test("the points a filter keeps, in the layout's order; no value, or no listing row, is not kept", () => {
  const range = keptRows({ column: "year", min: 2000, max: null }, LAYOUT, PAPERS);
  assert.deepEqual([...range], [1, 0, 1, 0, 0]); // d 2010, c none, b 2004, a 1999, new: not listed
  assert.deepEqual([...keptRows({ column: "venue", values: ["Oikos"] }, LAYOUT, PAPERS)], [0, 0, 0, 1, 0]);
  assert.deepEqual([...keptRows({ column: "venue", values: ["other"] }, LAYOUT, PAPERS)], [0, 0, 0, 0, 0]);
  assert.equal(keptRows(null, LAYOUT, PAPERS), null);
  assert.equal(keptRows({ column: "gone", values: ["x"] }, LAYOUT, PAPERS), null);
});

test("a filter in words and in the fragment, which reads back only what the listing has", () => {
  const range = { column: "year", min: 2000, max: 2010 };
  assert.equal(filterText(range), "year 2000 to 2010");
  assert.equal(filterText({ column: "year", min: null, max: 2010 }), "year up to 2010");
  assert.equal(filterText({ column: "venue", values: ["Nature"] }), "venue: Nature");
  for (const filter of [range, { column: "year", min: 2000, max: null }, { column: "venue", values: ["Nature"] }]) {
    assert.deepEqual(decodeFilter(encodeFilter(filter), PAPERS), filter);
  }
  assert.equal(encodeFilter({ column: "venue", values: ["A:B=C"] }), "venue=A%3AB%3DC");
  assert.equal(decodeFilter("venue=Science", PAPERS), null);
  assert.equal(decodeFilter("venue:1:2", PAPERS), null, "a range on a category column");
  assert.equal(decodeFilter("year=2000", PAPERS), null, "a value of a number column");
  assert.equal(decodeFilter("", PAPERS), null);
});

test("every column with something to choose can filter", () => {
  const empty = { kind: "category", categories: ["other"], codes: [0], other: true };
  assert.deepEqual(filterChoices({ columns: { year: YEAR, venue: VENUE, empty } }), ["year", "venue"]);
  assert.deepEqual(valuesOf(VENUE), ["Oikos", "Nature"]);
});
