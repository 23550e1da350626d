// The panels around the map, written from what they are given: the message over the map and the status
// line, the aspect-weight sliders, the colour legend and its choices, the lists of papers (results,
// neighbours, nearest papers), the filter's controls, and the reader (a paper, a clicked position or a placed draft). What to
// show is decided in actions.js; listeners are the entry module's (a paper's title is a link in an
// `li[data-id]`).

import { RAMP } from "./colours.js";
import { $, el } from "./dom.js";
import { filterText, valuesOf } from "./filters.js";
import { barWidth, countText, legendNumber, mapPosition, shareText, similarityText } from "./format.js";
import { state, titleOf, weightShares } from "./state.js";

// ----- messages and status ------------------------------------------------------------------------------

export function showMessage(text) {
  $("#message-text").textContent = text;
  $("#message").hidden = false;
}

export function clearMessage() {
  $("#message").hidden = true;
  $("#message-text").textContent = "";
}

export function setStatus(text) { $("#status").textContent = text; }

/** The status line: how many papers, which aspects, which layout, and what is off. */
export function statusLine({ layout, aspects, layoutWeights, explain, search }) {
  const parts = [`${countText(layout.ids.length)} papers on the map`];
  if (aspects.length > 1) parts.push(`aspects: ${aspects.join(", ")}`);
  if (layoutWeights) parts.push("laid out by chosen weights");
  parts.push(explain.on ? "positions can be described" : "no decoder");
  if (!search.on) parts.push("search off");
  return parts.join(" · ");
}

export function showStatus() { setStatus(statusLine(state)); }

/** Search is off: the query box says why in place of its prompt. */
export function showSearchOff(why) {
  $("#query").disabled = true;
  $("#search-button").disabled = true;
  $("#query").placeholder = why;
}

/** Mark a list as being ranked again (aria-busy), from the moment a change asks for it until the answer is shown. */
export function busy(selector, flag) { $(selector).setAttribute("aria-busy", String(flag)); }

// ----- weights and colours ------------------------------------------------------------------------------

/** One slider per aspect (a note instead for a one-aspect model), each with its share of the weights. */
export function showSliders(aspects, weights) {
  const holder = $("#weights");
  holder.replaceChildren();
  const note = $("#weights-note");
  note.hidden = aspects.length > 1;
  if (aspects.length < 2) {
    note.textContent = "This model has one embedding per paper; aspect weights steer multi-aspect models.";
    return;
  }
  $("#relayout").hidden = false;
  for (const aspect of aspects) {
    const slider = el("input", { type: "range", min: "0", max: "1", step: "0.05", "aria-label": aspect,
                                 dataset: { aspect } });
    slider.value = String(weights[aspect] ?? 0);
    holder.append(el("label", { class: "weight" }, el("span", {}, aspect), slider, el("span", { class: "share" })));
  }
  showShares(weights);
}

export function showShares(weights) {
  const shares = weightShares(weights);
  for (const label of document.querySelectorAll("#weights .weight")) {
    label.querySelector(".share").textContent = shareText(shares[label.querySelector("input").dataset.aspect]);
  }
}

export function showColourChoices(names, chosen) {
  const select = $("#colour-by");
  select.replaceChildren(...names.map((name) => el("option", { value: name }, name)));
  select.value = chosen;
}

/** The legend of colours.js's colouring: a ramp between its ends, or each category with its count. */
export function showLegend(legend, colourBy) {
  const box = $("#legend");
  box.replaceChildren();
  box.hidden = !legend;
  if (!legend) return;
  if (legend.kind === "number") {
    const gradient = `linear-gradient(to right, ${RAMP.join(", ")})`;
    box.append(el("span", {}, `${colourBy}: ${legendNumber(legend.low)}`,
      el("i", { class: "ramp", style: `background: ${gradient}` }), legendNumber(legend.high)));
    return;
  }
  for (const [name, colour, count] of legend.entries) {
    box.append(el("span", { dataset: { category: name } }, el("i", { style: `background: ${colour}` }),
      `${name || "(none)"} (${countText(count)})`));
  }
}

// ----- the filter ---------------------------------------------------------------------------------------

/** The columns to filter by ("" for all papers); the section is hidden when the corpus has none. */
export function showFilterColumns(names) {
  $("#filter").hidden = names.length === 0;
  $("#filter-column").replaceChildren(el("option", { value: "" }, "(all papers)"),
    ...names.map((name) => el("option", { value: name }, name)));
}

/** The inputs for the chosen column, holding `filter`'s bounds or value: a range for numbers (the placeholders
 * say the column's own range), the values of a category. */
export function showFilterInputs(name, column, filter) {
  $("#filter-column").value = column ? name : "";
  $("#filter-range").hidden = column?.kind !== "number";
  $("#filter-value").hidden = column?.kind !== "category";
  if (column?.kind === "number") {
    const values = column.values.filter((value) => value !== null);
    $("#filter-min").placeholder = values.length ? legendNumber(Math.min(...values)) : "";
    $("#filter-max").placeholder = values.length ? legendNumber(Math.max(...values)) : "";
    $("#filter-min").value = filter?.min ?? "";
    $("#filter-max").value = filter?.max ?? "";
  } else if (column) {
    $("#filter-value").replaceChildren(el("option", { value: "" }, "(choose)"),
      ...valuesOf(column).map((value) => el("option", { value }, value)));
    $("#filter-value").value = filter?.values?.[0] ?? "";
  }
}

/** How many papers the filter keeps, or that it keeps them all. */
export function showFilterNote(filter, kept, total) {
  $("#filter-note").textContent = filter
    ? `${countText(kept)} of ${countText(total)} papers (${filterText(filter)}): only these are ranked; the rest are faded.`
    : "";
}

// ----- lists of papers ----------------------------------------------------------------------------------

/** Words of the query (three letters or more, lower-cased), for marking them in snippets. */
export function queryTerms(query) {
  return new Set(query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) || []);
}

/** A snippet cut into words and what lies between, each part marked when it is one of `terms`. */
export function markedParts(text, terms) {
  if (!terms.size) return [{ text, marked: false }];
  return text.split(/([\p{L}\p{N}]+)/u).map((part) => ({ text: part, marked: terms.has(part.toLowerCase()) }));
}

function snippetOf(hit) {
  const parts = markedParts(hit.snippet, queryTerms(state.query));
  return el("div", { class: "snippet" }, parts.map(({ text, marked }) => (marked ? el("mark", {}, text) : text)));
}

/** A hit's similarity on each aspect, with a bar; the aspects the weights leave out are faded. */
function similarities(hit) {
  const aspects = Object.keys(hit.similarities || {});
  if (!aspects.length) return null;
  return el("div", { class: "sims" }, aspects.map((aspect) => {
    const value = hit.similarities[aspect];
    const weighted = (state.weights[aspect] ?? 1) > 0;
    return el("span", { class: `sim${weighted ? " weighted" : ""}`, dataset: { aspect } },
      el("b", {}, aspect || "similarity"), ` ${similarityText(value)}`,
      el("i", { class: "bar", style: `width: ${barWidth(value, 40)}px` }));
  }));
}

/** One paper in a list: its title (a link that opens it), how it moved, a snippet and its similarities. */
function paperItem(hit, { snippet = false, change = null } = {}) {
  const title = el("a", { class: "title", href: `#sel=${encodeURIComponent(hit.id)}` }, hit.title || titleOf(state, hit.id));
  return el("li", { dataset: { id: hit.id } }, title,
    change ? el("span", { class: `change ${change.kind}`, title: change.title }, change.text) : null,
    state.layout.row.has(hit.id) ? null : el("span", { class: "off-map" }, "(not on the map)"),
    snippet && hit.snippet ? snippetOf(hit) : null,
    similarities(hit));
}

export function resultsHeading(count, nearId, query) {
  if (!count) return "Results";
  return nearId !== null ? `${count} papers nearest to ${nearId}` : `${count} papers for “${query.slice(0, 60)}”`;
}

export function showResults(results, heading) {
  const list = $("#results");
  list.replaceChildren(...results.map((hit) => paperItem(hit, { snippet: true })));
  $("#results-empty").hidden = results.length > 0;
  $("#export").hidden = results.length === 0;
  $("#results-heading").textContent = heading;
  list.dataset.count = String(results.length);
}

/** How a paper moved between two rankings (`before`: the ids ranked before, or null for no marks). */
export function movement(before, id, rank) {
  if (!before) return null;
  const was = before.indexOf(id);
  if (was < 0) return { kind: "new", text: "new", title: "not among the neighbours before the weights changed" };
  if (was === rank) return null;
  const up = was > rank;
  return { kind: up ? "up" : "down", text: `${up ? "↑" : "↓"}${Math.abs(was - rank)}`, title: `was #${was + 1}` };
}

/** A paper's neighbours, each marked with how it moved since `before`; the ones that left the top `k` are named. */
export function showNeighbours(hits, before, k) {
  const now = hits.map((hit) => hit.id);
  $("#neighbours").replaceChildren(...hits.map((hit, rank) => paperItem(hit, { change: movement(before, hit.id, rank) })));
  const dropped = before ? before.filter((other) => !now.includes(other)) : [];
  $("#neighbours-dropped").textContent = dropped.length
    ? `Left the top ${k}: ${dropped.map((other) => titleOf(state, other)).join("; ")}` : "";
}

// ----- the reader ---------------------------------------------------------------------------------------

/** Which part of the reader shows: "none", "paper", "position" or "draft". */
export function showPanel(kind) {
  $("#reader").dataset.kind = kind;
  $("#reader-empty").hidden = kind !== "none";
  $("#paper").hidden = kind !== "paper";
  $("#position").hidden = kind !== "position";
  $("#landing").hidden = kind !== "draft";
}

/** A paper being opened: the title the listing knows, an empty abstract (or `note` saying why there is none). */
export function showPaperOpening(id, note = "") {
  $("#paper-title").textContent = titleOf(state, id);
  $("#paper-meta").textContent = id;
  $("#paper-abstract").textContent = note;
  $("#paper-summaries").replaceChildren();
  $("#neighbours").replaceChildren();
  $("#neighbours-dropped").textContent = "";
}

export function showPaperFailed(message) {
  $("#paper-title").textContent = "This paper could not be opened";
  $("#paper-abstract").textContent = message;
}

export function kindName(kind) {
  if (kind === "summary") return "Generated summaries";
  if (kind === "query") return "Generated queries";
  return kind.startsWith("aspect:") ? `Aspect: ${kind.slice(7)}` : kind;
}

/** What to say in place of a paper's generated texts: none are served (`why`), or none were made for it; else null. */
export function summariesNote(summaries, why) {
  if (summaries === null) return `No generated summaries: ${why}`;
  return Object.keys(summaries).length ? null : "No summaries were generated for this paper.";
}

/** A paper's generated texts, by kind, or the note saying why there are none. */
function summariesOf(summaries, why) {
  const note = summariesNote(summaries, why);
  if (note !== null) return [el("p", { class: "note" }, note)];
  return Object.entries(summaries).map(([kind, texts]) =>
    el("details", { open: "", dataset: { kind } }, el("summary", {}, `${kindName(kind)} (${texts.length})`),
      el("ul", {}, texts.map((text) => el("li", {}, text)))));
}

export function showPaper(paper, summariesWhy) {
  $("#paper-title").textContent = paper.title || paper.id;
  const columns = Object.entries(paper.columns).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : v}`);
  $("#paper-meta").textContent = [paper.id, ...columns].join(" · ");
  $("#paper-abstract").textContent = paper.abstract || "(no abstract is stored for this paper)";
  $("#paper-summaries").replaceChildren(...summariesOf(paper.summaries, summariesWhy));
}

/** A clicked position, or a clicked region name's centre: where it is, the button that describes it (or why there
 * is none) and its nearest papers. */
export function showPosition({ x, y }, explain, nearest, region = null) {
  const name = region && region.words.join(" · ");
  $("#position-heading").textContent = region ? `Region “${name}”` : "This position";
  $("#position-where").textContent = region
    ? `${countText(region.papers)} papers around ${mapPosition(x, y)}`
    : `${mapPosition(x, y)} on the map`;
  $("#description").textContent = "";
  $("#describe-box").replaceChildren(explain.on
    ? el("button", { id: "describe", type: "button" }, region ? "Describe this region" : "Describe this position")
    : el("p", { id: "describe-off", class: "note" }, explain.why));
  $("#position-nearest").replaceChildren(...nearest.map((hit) => paperItem(hit)));
}

/** The decoded texts of a position, one line per aspect. */
export function descriptionText(texts) {
  return Object.entries(texts).map(([aspect, text]) => `${aspect || "description"}: ${text}`).join("\n");
}

/** The description box; `ready` marks a finished description. */
export function showDescription(text, ready) {
  const out = $("#description");
  out.textContent = text;
  if (ready) out.dataset.ready = "1";
  else delete out.dataset.ready;
}

/** Each aspect's mean similarity to the (up to) five nearest papers, closest aspect first. */
export function closeness(results) {
  const top = results.slice(0, 5);
  const aspects = Object.keys(top[0] ? top[0].similarities : {});
  const means = aspects.map((aspect) => [aspect, top.reduce((sum, hit) => sum + hit.similarities[aspect], 0) / top.length]);
  return means.sort((a, b) => b[1] - a[1]);
}

/** Where a draft landed and beside which paper, the aspects it is closest on and its nearest papers (`results`;
 * null when search is off, which `searchWhy` explains). */
export function showLanding(draft, beside, results, searchWhy) {
  $("#landing-where").textContent = `Lands at ${mapPosition(draft.x, draft.y)}, beside “${beside}”.`;
  const aspects = $("#draft-aspects");
  if (!results) {
    aspects.replaceChildren(el("li", { class: "note" }, searchWhy));
    $("#draft-neighbours").replaceChildren();
    return;
  }
  const top = Math.min(5, results.length);
  aspects.replaceChildren(...closeness(results).map(([aspect, value]) => el("li", { dataset: { aspect } },
    el("b", {}, aspect || "embedding"), ` ${similarityText(value)} mean similarity to its ${top} nearest`,
    el("i", { class: "bar", style: `width: ${barWidth(value, 60)}px` }))));
  $("#draft-neighbours").replaceChildren(...results.map((hit) => paperItem(hit, { snippet: true })));
}
