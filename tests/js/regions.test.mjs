// Naming the map's regions: the words a title offers, k-means on the map, each region's most distinctive words,
// the scale a zoom shows, and labels that do not overlap.
import assert from "node:assert/strict";
import { test } from "node:test";

import { layoutFrom } from "../../semcse/apps/static/geometry.js";
import {
  distinctiveWords, kMeans, namedRegions, regionColumn, scaleAt, titleTerms, titleWords, unoverlapped,
} from "../../semcse/apps/static/regions.js";

/** Three tight blobs far apart (the same points every run), their papers titled by their own topic's words. */
function blobs(perBlob = 30) {
  const centres = [[-50, 0], [50, 0], [0, 80]];
  const topics = [
    ["knotweed", "rhizome", "riverbank"], ["coral", "bleaching", "reef"], ["mosquito", "dengue", "vector"],
  ];
  const [ids, x, y, titles] = [[], [], [], []];
  let value = 11;
  const next = () => { value = (value * 1103515245 + 12345) % 2 ** 31; return value / 2 ** 31 - 0.5; };
  centres.forEach(([cx, cy], b) => {
    for (let i = 0; i < perBlob; i++) {
      ids.push(`p${b}-${i}`);
      x.push(cx + 4 * next());
      y.push(cy + 4 * next());
      const [a, c, d] = topics[b];
      titles.push(`The effects of ${a} and ${i % 2 ? c : d} on invasion in study ${i} ${i === 0 ? "unique" : ""}`);
    }
  });
  return { layout: layoutFrom({ ids, x, y, labels: null }), titles, topics };
}

test("a title's words: lower case, no stopwords, no numbers or short words, hyphenated words whole", () => {
  assert.deepEqual(titleWords("The Effects of Grazing on Long-term Plant Diversity in 2019: a Study"), [
    "grazing", "long-term", "plant", "diversity",
  ]);
  assert.deepEqual(titleWords(""), []);
  assert.deepEqual(titleWords(null), []);
});

test("k-means finds three blobs far apart, the same way on every run", () => {
  const { layout } = blobs();
  const region = kMeans(layout.xs, layout.ys, 3);
  const perBlob = [0, 1, 2].map((b) => new Set(region.slice(30 * b, 30 * b + 30)));
  assert.ok(perBlob.every((set) => set.size === 1), "each blob is one region");
  assert.equal(new Set(perBlob.map((set) => [...set][0])).size, 3, "and the three regions differ");
  assert.deepEqual(kMeans(layout.xs, layout.ys, 3), region);
});

test("a region is named by its own words, not the words every region shares nor a word seen once", () => {
  const { layout, titles, topics } = blobs();
  const region = kMeans(layout.xs, layout.ys, 3);
  const names = distinctiveWords(region, titleTerms(titles), 3);
  for (let b = 0; b < 3; b++) {
    const name = names[region[30 * b]];
    assert.equal(name[0], topics[b][0], `blob ${b}: ${name}`); // in every title of the blob, in no other
    assert.deepEqual(new Set(name), new Set(topics[b]), `blob ${b}: ${name}`);
  }
  assert.ok(!names.flat().includes("invasion"), "in every title of the map: nothing distinctive");
  assert.ok(!names.flat().includes("unique"), "in one title of each region: not a name");
});

test("regions at each scale, largest first, with their centres and spreads; too few papers make fewer regions", () => {
  const { layout, titles, topics } = blobs();
  const [coarse, fine] = namedRegions(layout, titles, [3, 12]);
  assert.equal(coarse.length, 3);
  const knotweed = coarse.find((r) => r.words[0] === topics[0][0]);
  assert.ok(Math.abs(knotweed.x + 50) < 1 && Math.abs(knotweed.y) < 1 && knotweed.papers === 30, JSON.stringify(knotweed));
  assert.ok(knotweed.radius > 0.5 && knotweed.radius < 3);
  assert.ok(fine.length > 3 && fine.every((r) => r.papers >= 5));
  assert.ok(fine.every((r, i) => i === 0 || fine[i - 1].papers >= r.papers));
  assert.deepEqual(namedRegions(layoutFrom({ ids: ["a"], x: [0], y: [0], labels: null }), ["coral reef"]), [[], [], []]);
});

test("the zoom shows the finest scale whose regions are wide enough on screen", () => {
  const regions = [[{ radius: 10 }], [{ radius: 4 }, { radius: 5 }, { radius: 6 }], [{ radius: 1 }]];
  assert.equal(scaleAt(regions, 1, 100), 0); // none is 100 px across: the coarsest
  assert.equal(scaleAt(regions, 10, 100), 1); // the middle one's median spans 2 × 5 × 10 = 100 px, the finest 20
  assert.equal(scaleAt(regions, 60, 100), 2);
  assert.equal(scaleAt([[], [{ radius: 1 }]], 1, 100), 1);
  assert.equal(scaleAt([[], []], 1, 100), -1);
});

test("a label that would overlap a larger region's is left out, and so is one off screen", () => {
  const box = (left, top) => ({ left, top, right: left + 50, bottom: top + 20 });
  assert.deepEqual(unoverlapped([box(0, 0), box(40, 10), null, box(60, 0), box(0, 20)]), [0, 3, 4]);
});

test("the coarsest regions colour the map: each point by the nearest named region, named as drawn", () => {
  const { layout, titles, topics } = blobs();
  const [coarse] = namedRegions(layout, titles, [3]);
  const column = regionColumn(layout, coarse);
  assert.equal(column.kind, "category");
  assert.deepEqual(new Set(column.names), new Set(coarse.map((r) => r.words.join(" · "))));
  for (let b = 0; b < 3; b++) {
    const codes = new Set(column.codes.slice(30 * b, 30 * b + 30));
    assert.equal(codes.size, 1);
    assert.equal(column.names[[...codes][0]].split(" · ")[0], topics[b][0]);
  }
});
