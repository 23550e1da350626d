// The view's state in the URL's fragment (what a shared link reopens), the aspect weights, and what a query names.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  createState, decodeFragment, decodeWeights, encodeFragment, encodeWeights, paperIdIn, titleOf, weightShares,
  weightsUsable,
} from "../../semcse/apps/static/state.js";

const ASPECTS = ["aspect_a", "aspect_b"];

function viewedState() {
  const state = createState();
  Object.assign(state, {
    aspects: ASPECTS, weights: { aspect_a: 0.2, aspect_b: 0.55 }, query: "transformer fine-tuned & end to end",
    selected: "W12", colourBy: "topic", layoutWeights: { aspect_a: 1, aspect_b: 0 }, showRegions: false,
    filter: { column: "year", min: 2000, max: null },
  });
  state.view = { width: 800, height: 600, cx: 1.23456, cy: -7.5, scale: 50, fit: 20 };
  return state;
}

test("a view survives the fragment: query, weights, selection, viewport, colouring, layout, region names, filter", () => {
  const asked = decodeFragment(`#${encodeFragment(viewedState())}`, ASPECTS);
  assert.deepEqual(asked, {
    query: "transformer fine-tuned & end to end",
    weights: { aspect_a: 0.2, aspect_b: 0.55 },
    layoutWeights: { aspect_a: 1, aspect_b: 0 },
    colourBy: "topic",
    showRegions: false,
    filter: "year:2000:",
    viewport: { cx: 1.2346, cy: -7.5, zoom: 2.5 },
    selected: "W12",
    position: null,
  });
});

test("a clicked position is kept to four decimals, in place of a selection", () => {
  const state = viewedState();
  Object.assign(state, { selected: null, position: { x: 3.141592, y: -2.718281 } });
  const asked = decodeFragment(encodeFragment(state), ASPECTS);
  assert.deepEqual([asked.selected, asked.position], [null, { x: 3.1416, y: -2.7183 }]);
});

test("the fragment says only what differs from a fresh page, in the format shared links have", () => {
  const state = createState();
  Object.assign(state, { aspects: [""], weights: { "": 1 } });
  assert.equal(encodeFragment(state), "v=0.0000%2C0.0000%2C1.000"); // one aspect: no weights; colour by label: no c
  // as written by URLSearchParams: the weights' ":" and "," escaped once more
  const old = "q=coral+reef&w=aspect_a%3A0.2%2Caspect_b%3A1&sel=W7&v=0.5000%2C-1.0000%2C2.560&c=topic";
  assert.deepEqual(decodeFragment(old, ASPECTS).weights, { aspect_a: 0.2, aspect_b: 1 });
  assert.equal(decodeFragment(old, ASPECTS).query, "coral reef");
});

test("what a fragment cannot say is left out: unknown aspects, bad numbers, a bad viewport", () => {
  const asked = decodeFragment("w=species%3A1%2Caspect_a%3Aheavy%2Caspect_b%3A7&v=1%2C2&at=1%2Cx", ASPECTS);
  assert.deepEqual(asked.weights, { aspect_b: 1 }); // clamped to [0, 1]
  assert.equal(asked.viewport, null);
  assert.equal(asked.position, null);
  assert.equal(decodeFragment("v=1%2C2%2C0", ASPECTS).viewport, null); // zoom 0
  assert.deepEqual(decodeFragment("", ASPECTS), {
    query: "", weights: {}, layoutWeights: {}, colourBy: null, showRegions: true, filter: null, viewport: null,
    selected: null, position: null,
  });
});

test("weights are written to three decimals, aspect names escaped", () => {
  assert.equal(encodeWeights({ "a:b,c": 0.123456, d: 1 }), "a%3Ab%2Cc:0.123,d:1");
  assert.deepEqual(decodeWeights("a%3Ab%2Cc:0.123,d:1", ["a:b,c", "d"]), { "a:b,c": 0.123, d: 1 });
});

test("each aspect's share of the weights, and whether they can rank anything", () => {
  assert.deepEqual(weightShares({ aspect_a: 0, aspect_b: 0.5 }), { aspect_a: 0, aspect_b: 100 });
  assert.deepEqual(weightShares({ aspect_a: 0.25, aspect_b: 0.5 }), { aspect_a: 33, aspect_b: 67 });
  assert.deepEqual(weightShares({ aspect_a: 0, aspect_b: 0 }), { aspect_a: null, aspect_b: null });
  assert.equal(weightsUsable(ASPECTS, { aspect_a: 0, aspect_b: 0 }), false);
  assert.equal(weightsUsable(ASPECTS, { aspect_a: 0, aspect_b: 0.05 }), true);
  assert.equal(weightsUsable([""], { "": 0 }), true); // one aspect ranks whatever its weight
});

test("a query names a paper by id: prefixed, or exactly a listed id", () => {
  const papers = { titles: ["Coral reefs"], columns: {}, row: new Map([["W1", 0]]) };
  assert.equal(paperIdIn("id: W9 ", papers), "W9");
  assert.equal(paperIdIn("id:", papers), ""); // asks for an id it does not give
  assert.equal(paperIdIn("W1", papers), "W1");
  assert.equal(paperIdIn("W1 coral", papers), null);
  assert.equal(titleOf({ papers }, "W1"), "Coral reefs");
  assert.equal(titleOf({ papers }, "W2"), "W2"); // unlisted: its id
});
