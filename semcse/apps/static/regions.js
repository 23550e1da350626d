// Names for the map's regions. The layout is cut into regions at a few scales (k-means on the map's own
// coordinates, so a region is what the eye sees as a cluster), and each region is named by the words that set
// its papers' titles apart from the rest of the map: class-based TF-IDF, the way BERTopic names topics.
// map.js draws the finest scale whose regions are still wide on screen, so zooming in reveals finer names.
// Every function here is pure.

export const SCALES = [6, 24, 96]; // regions per scale, coarse to fine
const MIN_PAPERS = 5; // a region has at least this many papers (fewer points make fewer regions)
const WORDS = 3; // words in a region's name
const ITERATIONS = 12;
const SAMPLE = 4000; // points k-means fits its centres on
const STOPWORDS = new Set(`
  a about above across after against along among an and any are as at be been before being between both but by
  can could did do does during each either for from had has have how however if in into is it its more most new
  no non not of on one or other our over per should such than that the their them then there these they this
  those through to towards two under upon use used using via was we were what when where whether which while who
  why will with within without would
  analysis approach approaches assessment based case effect effects evidence first high impact impacts large low
  model models novel potential recent report response role studies study system systems three toward
`.split(/\s+/).filter(Boolean));

/** The words of a title that can name a region: lower case, three letters or more, no stopwords, no numbers. */
export function titleWords(title) {
  const words = (title || "").toLowerCase().match(/\p{L}[\p{L}\p{N}'-]*\p{L}/gu) || [];
  return words.filter((word) => word.length >= 3 && !STOPWORDS.has(word));
}

/** A seeded generator of numbers in [0, 1) (a linear congruential one: the same regions for the same map). */
function random(seed) {
  let value = seed >>> 0;
  return () => {
    value = (Math.imul(value, 1664525) + 1013904223) >>> 0;
    return value / 2 ** 32;
  };
}

/** Each point's nearest centre. */
function assign(xs, ys, cx, cy, region) {
  for (let i = 0; i < xs.length; i++) {
    let best = 0;
    let bestD = Infinity;
    for (let c = 0; c < cx.length; c++) {
      const dx = xs[i] - cx[c];
      const dy = ys[i] - cy[c];
      const d = dx * dx + dy * dy;
      if (d < bestD) { best = c; bestD = d; }
    }
    region[i] = best;
  }
  return region;
}

/** k-means of the points: k-means++ seeding and a fixed number of rounds on at most SAMPLE of them (every
 * ⌈n / SAMPLE⌉-th: a 37k-paper map is named in tens of milliseconds), then each point's region, 0 … k − 1. */
export function kMeans(xs, ys, k, seed = 1) {
  const stride = Math.ceil(xs.length / SAMPLE);
  const [sxs, sys] = [xs, ys].map((values) => Float64Array.from({ length: Math.ceil(values.length / stride) }, (_, i) => values[i * stride]));
  const n = sxs.length;
  const next = random(seed);
  const cx = new Float64Array(k);
  const cy = new Float64Array(k);
  const nearest = new Float64Array(n).fill(Infinity);
  let pick = Math.floor(next() * n);
  for (let c = 0; c < k; c++) {
    [cx[c], cy[c]] = [sxs[pick], sys[pick]];
    let total = 0;
    for (let i = 0; i < n; i++) {
      const d = (sxs[i] - cx[c]) ** 2 + (sys[i] - cy[c]) ** 2;
      if (d < nearest[i]) nearest[i] = d;
      total += nearest[i];
    }
    let target = next() * total; // the next centre: a point drawn with probability ∝ its squared distance
    pick = 0;
    while (pick < n - 1 && target > nearest[pick]) target -= nearest[pick++];
  }
  const region = new Int32Array(n);
  for (let round = 0; round < ITERATIONS; round++) {
    assign(sxs, sys, cx, cy, region);
    const [sx, sy, count] = [new Float64Array(k), new Float64Array(k), new Float64Array(k)];
    for (let i = 0; i < n; i++) { sx[region[i]] += sxs[i]; sy[region[i]] += sys[i]; count[region[i]] += 1; }
    for (let c = 0; c < k; c++) if (count[c]) [cx[c], cy[c]] = [sx[c] / count[c], sy[c] / count[c]];
  }
  return assign(xs, ys, cx, cy, new Int32Array(xs.length));
}

/** Each region's WORDS most distinctive words (seen in at least two of its titles), by class-based TF-IDF:
 * a word's share of the region's words × log(1 + the average words per region / the word's count on the map).
 * `words` holds each paper's distinct title words (`titleWords`). */
export function distinctiveWords(region, words, k) {
  const counts = Array.from({ length: k }, () => new Map());
  const everywhere = new Map();
  const sizes = new Float64Array(k);
  for (let i = 0; i < words.length; i++) {
    for (const word of words[i]) {
      const own = counts[region[i]];
      own.set(word, (own.get(word) || 0) + 1);
      everywhere.set(word, (everywhere.get(word) || 0) + 1);
      sizes[region[i]] += 1;
    }
  }
  const average = sizes.reduce((a, b) => a + b, 0) / k;
  return counts.map((own, c) =>
    [...own].filter(([, count]) => count >= 2)
      .map(([word, count]) => [word, (count / sizes[c]) * Math.log(1 + average / everywhere.get(word))])
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, WORDS)
      .map(([word]) => word));
}

/** The named regions of a layout at every scale: [{x, y, papers, radius, words}] per scale, coarse to fine, where
 * (x, y) is the region's centre and `radius` the root-mean-square distance of its papers from it (map units).
 * `titles` are in the layout's row order; a region with no word seen twice is left unnamed (and out). */
export function namedRegions(layout, titles, scales = SCALES) {
  const { xs, ys } = layout;
  const words = titles.map((title) => [...new Set(titleWords(title))]);
  return scales.map((wanted, s) => {
    const k = Math.min(wanted, Math.floor(xs.length / MIN_PAPERS));
    if (k < 1) return [];
    const region = kMeans(xs, ys, k, s + 1);
    const names = distinctiveWords(region, words, k);
    const [sx, sy, count] = [new Float64Array(k), new Float64Array(k), new Float64Array(k)];
    for (let i = 0; i < xs.length; i++) { sx[region[i]] += xs[i]; sy[region[i]] += ys[i]; count[region[i]] += 1; }
    const spread = new Float64Array(k);
    for (let i = 0; i < xs.length; i++) {
      const c = region[i];
      spread[c] += (xs[i] - sx[c] / count[c]) ** 2 + (ys[i] - sy[c] / count[c]) ** 2;
    }
    return names
      .map((words, c) => ({ x: sx[c] / count[c], y: sy[c] / count[c], papers: count[c], radius: Math.sqrt(spread[c] / count[c]), words }))
      .filter((r) => r.papers >= MIN_PAPERS && r.words.length > 0)
      .sort((a, b) => b.papers - a.papers);
  });
}

/** The scale to name at this zoom: the finest whose typical region is at least `minPixels` across on screen
 * (the coarsest when none is); -1 when there are no regions. */
export function scaleAt(regions, pixelsPerUnit, minPixels) {
  let chosen = regions.findIndex((scale) => scale.length > 0);
  regions.forEach((scale, s) => {
    if (!scale.length) return;
    const radii = scale.map((r) => r.radius).sort((a, b) => a - b);
    if (2 * radii[Math.floor(radii.length / 2)] * pixelsPerUnit >= minPixels) chosen = s;
  });
  return chosen;
}

/** Label boxes that do not overlap, largest region first: `boxes` are {left, top, right, bottom} (or null for one
 * off screen), in the regions' order; returns the indices kept. */
export function unoverlapped(boxes) {
  const kept = [];
  boxes.forEach((box, i) => {
    if (!box) return;
    const clash = kept.some((j) => {
      const other = boxes[j];
      return box.left < other.right && other.left < box.right && box.top < other.bottom && other.top < box.bottom;
    });
    if (!clash) kept.push(i);
  });
  return kept;
}
