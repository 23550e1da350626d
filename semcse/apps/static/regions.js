// Names for the map's regions. The layout is cut into regions at a few scales (k-means on the map's own
// coordinates, so a region is what the eye sees as a cluster), and each region is named by the words that set
// its papers' titles apart from the rest of the map (their keyness, `distinctiveWords`).
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

const WORD = /\p{L}[\p{L}\p{N}'-]*\p{L}/gu;

/** The words of a title that can name a region: lower case, three letters or more, no stopwords, no numbers. */
export function titleWords(title) {
  const words = (title || "").toLowerCase().match(WORD) || [];
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

/** Each region's mean position and size: [x, y, count], the means NaN for an empty region. */
function means(xs, ys, region, k) {
  const [sx, sy, count] = [new Float64Array(k), new Float64Array(k), new Float64Array(k)];
  for (let i = 0; i < xs.length; i++) { sx[region[i]] += xs[i]; sy[region[i]] += ys[i]; count[region[i]] += 1; }
  return [sx.map((v, c) => v / count[c]), sy.map((v, c) => v / count[c]), count];
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
    const [mx, my, count] = means(sxs, sys, assign(sxs, sys, cx, cy, region), k);
    for (let c = 0; c < k; c++) if (count[c]) [cx[c], cy[c]] = [mx[c], my[c]];
  }
  return assign(xs, ys, cx, cy, new Int32Array(xs.length));
}

/** Each title's distinct words as numbers into one vocabulary (counting numbers is faster than counting strings). */
export function titleTerms(titles) {
  const number = new Map();
  const vocabulary = [];
  const lastTitle = []; // per term, the last title that held it: a title counts a word once
  const terms = titles.map((title, i) => {
    const own = [];
    for (const word of titleWords(title)) {
      let term = number.get(word);
      if (term === undefined) {
        term = vocabulary.length;
        number.set(word, term);
        vocabulary.push(word);
        lastTitle.push(-1);
      }
      if (lastTitle[term] !== i) { lastTitle[term] = i; own.push(term); }
    }
    return own;
  });
  return { terms, vocabulary };
}

/** Whether two words are one word's singular and plural ("ant", "ants"; "invasion", "invasions"). */
function sameWord(a, b) {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return long.startsWith(short) && long.length - short.length <= 2;
}

/** Each region's WORDS most distinctive words, seen in at least two of its titles, by keyness: the share of the
 * region's titles that hold the word × log(that share / its share over the whole map). A word as common
 * everywhere as in the region scores nothing, so a corpus's own topic ("invasive", "species") names no region.
 * `titles` is `titleTerms`' answer, in the order of `region`. */
export function distinctiveWords(region, { terms, vocabulary }, k) {
  const size = vocabulary.length;
  const counts = new Int32Array(k * size); // region × term: titles of the region holding the term
  const everywhere = new Int32Array(size);
  const members = Array.from({ length: k }, () => []);
  for (let i = 0; i < terms.length; i++) {
    const at = region[i] * size;
    members[region[i]].push(i);
    for (const term of terms[i]) { counts[at + term] += 1; everywhere[term] += 1; }
  }
  return members.map((rows, c) => {
    const scored = [];
    for (const i of rows) {
      for (const term of terms[i]) {
        const count = counts[c * size + term];
        if (count < 2) continue;
        counts[c * size + term] = 0; // scored once
        const [share, overall] = [count / rows.length, everywhere[term] / terms.length];
        if (share > overall) scored.push([share * Math.log(share / overall), vocabulary[term]]);
      }
    }
    scored.sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? -1 : 1));
    const chosen = [];
    for (const [, word] of scored) {
      if (chosen.length === WORDS) break;
      if (!chosen.some((other) => sameWord(other, word))) chosen.push(word);
    }
    return chosen;
  });
}

/** The named regions of a layout at every scale: [{x, y, papers, radius, words}] per scale, coarse to fine, where
 * (x, y) is the region's centre and `radius` the root-mean-square distance of its papers from it (map units).
 * `titles` are in the layout's row order; a region with no distinctive word is left unnamed (and out). */
export function namedRegions(layout, titles, scales = SCALES) {
  const { xs, ys } = layout;
  const terms = titleTerms(titles);
  return scales.map((wanted, s) => {
    const k = Math.min(wanted, Math.floor(xs.length / MIN_PAPERS));
    if (k < 1) return [];
    const region = kMeans(xs, ys, k, s + 1);
    const names = distinctiveWords(region, terms, k);
    const [mx, my, count] = means(xs, ys, region, k);
    const spread = new Float64Array(k);
    for (let i = 0; i < xs.length; i++) spread[region[i]] += (xs[i] - mx[region[i]]) ** 2 + (ys[i] - my[region[i]]) ** 2;
    return names
      .map((words, c) => ({ x: mx[c], y: my[c], papers: count[c], radius: Math.sqrt(spread[c] / count[c]), words }))
      .filter((r) => r.papers >= MIN_PAPERS && r.words.length > 0)
      .sort((a, b) => b.papers - a.papers);
  });
}

/** The coarsest named regions as a colouring column: each point coded by the named region whose centre is nearest
 * (names as the map draws them), for colours.js. */
export function regionColumn(layout, regions) {
  const [cx, cy] = ["x", "y"].map((axis) => Float64Array.from(regions, (region) => region[axis]));
  const codes = assign(layout.xs, layout.ys, cx, cy, new Int32Array(layout.xs.length));
  return { kind: "category", names: regions.map((region) => region.words.join(" · ")), codes, other: false };
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
