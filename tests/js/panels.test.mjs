// What the panels say: how a neighbour moved, a draft's closest aspects, marked snippets, headings, notes.
import assert from "node:assert/strict";
import { test } from "node:test";

import { roleOf } from "../../semcse/apps/static/map.js";
import {
  closeness, descriptionText, kindName, markedParts, movement, queryTerms, resultsHeading, statusLine, summariesNote,
} from "../../semcse/apps/static/panels.js";
import { createState } from "../../semcse/apps/static/state.js";

test("a neighbour ranked again is marked with how far it moved, or as new; unmoved ones are not marked", () => {
  const before = ["a", "b", "c"];
  assert.deepEqual(movement(before, "c", 0), { kind: "up", text: "↑2", title: "was #3" });
  assert.deepEqual(movement(before, "a", 1), { kind: "down", text: "↓1", title: "was #1" });
  assert.equal(movement(before, "b", 1), null);
  assert.equal(movement(before, "z", 2).kind, "new");
  assert.equal(movement(null, "a", 0), null); // a paper opened afresh: no marks
});

test("a draft is closest on the aspect its five nearest papers are most similar on", () => {
  const hit = (a, b) => ({ similarities: { aspect_a: a, aspect_b: b } });
  const results = [hit(0.9, 0.1), hit(0.7, 0.3), hit(0.5, 0.5), hit(0.3, 0.2), hit(0.1, 0.4), hit(-5, 9)];
  const [[first, a], [second, b]] = closeness(results);
  assert.deepEqual([first, second], ["aspect_a", "aspect_b"]);
  assert.ok(Math.abs(a - 0.5) < 1e-12 && Math.abs(b - 0.3) < 1e-12); // the sixth does not count
  assert.deepEqual(closeness([]), []);
});

test("words of the query are marked in a snippet, whatever their case", () => {
  const terms = queryTerms("Coral reef, bleaching of it");
  assert.deepEqual([...terms], ["coral", "reef", "bleaching"]); // words of three letters or more
  const marked = markedParts("Reefs and coral: REEF bleaching.", terms).filter((part) => part.marked);
  assert.deepEqual(marked.map((part) => part.text), ["coral", "REEF", "bleaching"]);
  assert.deepEqual(markedParts("no terms", new Set()), [{ text: "no terms", marked: false }]);
});

test("headings, summaries' notes and descriptions", () => {
  assert.equal(resultsHeading(0, null, "x"), "Results");
  assert.equal(resultsHeading(20, null, "coral reef bleaching"), "20 papers for “coral reef bleaching”");
  assert.equal(resultsHeading(20, "W7", "W7"), "20 papers nearest to W7");
  assert.equal(resultsHeading(3, null, "x".repeat(100)), `3 papers for “${"x".repeat(60)}”`);
  assert.deepEqual(["summary", "query", "aspect:methods", "other"].map(kindName),
    ["Generated summaries", "Generated queries", "Aspect: methods", "other"]);
  assert.equal(summariesNote(null, "no generated texts were given"), "No generated summaries: no generated texts were given");
  assert.equal(summariesNote({}, "unused"), "No summaries were generated for this paper.");
  assert.equal(summariesNote({ summary: ["a"] }, ""), null);
  assert.equal(descriptionText({ aspect_a: "reefs", "": "text" }), "aspect_a: reefs\ndescription: text");
});

test("the status line says how big the map is and what is off", () => {
  const state = createState();
  state.layout = { ...state.layout, ids: Array(40000).fill("p") };
  Object.assign(state, { aspects: ["a", "b"], explain: { on: true, why: "" } });
  assert.equal(statusLine(state), `${(40000).toLocaleString()} papers on the map · aspects: a, b · positions can be described · search off`);
  Object.assign(state, { aspects: [""], layoutWeights: { "": 1 }, explain: { on: false }, search: { on: true } });
  assert.equal(statusLine(state), `${(40000).toLocaleString()} papers on the map · laid out by chosen weights · no decoder`);
});

test("a marked point's tooltip says what the mark means", () => {
  const marks = { results: [{ id: "r0" }, { id: "r1" }], selected: "s", neighbours: [{ id: "n" }], draftNeighbours: [{ id: "d" }] };
  assert.deepEqual(["s", "r1", "n", "d", "x"].map((id) => roleOf(marks, id)),
    ["selected", "result 2", "neighbour of the selected paper", "near your draft", null]);
});
