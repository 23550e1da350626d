// A filter by one corpus column: a range of a number column (a year from … to …), or one value of a category column
// (a venue). The search app ranks only the papers it keeps (the `filter` of POST /search); the map fades the rest.
// Here: the filter the controls describe, which points it keeps, what it says, and how the URL's fragment holds it.
// Every function here is pure.

/** A category column's values a filter can name (its "other" bucket, the rarer values together, is not one). */
export function valuesOf(column) {
  return column.other ? column.categories.slice(0, -1) : column.categories;
}

/** The filter on `column` (a listing column: {kind: "number"} or {kind: "category"}) that the controls' text
 * describes: a number range from `min`/`max` (either may be empty), or the category `value`; null for none. */
export function filterFrom(column, name, { min = "", max = "", value = "" }) {
  if (!column) return null;
  if (column.kind === "number") {
    const [low, high] = [min, max].map((text) => (String(text).trim() === "" ? null : Number(text)));
    if (![low, high].every((bound) => bound === null || Number.isFinite(bound))) return null;
    return low === null && high === null ? null : { column: name, min: low, max: high };
  }
  return value && valuesOf(column).includes(value) ? { column: name, values: [value] } : null;
}

/** Which points the filter keeps, as one flag per layout row; null when nothing is filtered. A paper with no
 * value in the column, or missing from the listing, is not kept. */
export function keptRows(filter, layout, papers) {
  const column = filter && papers.columns[filter.column];
  if (!column) return null;
  const kept = new Uint8Array(layout.ids.length);
  layout.ids.forEach((id, i) => {
    const row = papers.row.get(id);
    if (row === undefined) return;
    if (column.kind === "number") {
      const value = column.values[row];
      kept[i] = value !== null && (filter.min === null || value >= filter.min) && (filter.max === null || value <= filter.max);
    } else {
      const code = column.codes[row];
      kept[i] = code >= 0 && code < valuesOf(column).length && filter.values.includes(column.categories[code]);
    }
  });
  return kept;
}

/** What a filter keeps, in words: "year 2000 to 2010", "year from 2000", "venue: Nature". */
export function filterText(filter) {
  if (!filter) return "";
  if (filter.values) return `${filter.column}: ${filter.values.join(", ")}`;
  if (filter.min !== null && filter.max !== null) return `${filter.column} ${filter.min} to ${filter.max}`;
  return filter.min !== null ? `${filter.column} from ${filter.min}` : `${filter.column} up to ${filter.max}`;
}

/** The filter as the fragment's `f`: column:min:max for a range (a bound may be empty), column=value. */
export function encodeFilter(filter) {
  if (!filter) return "";
  const name = encodeURIComponent(filter.column);
  if (filter.values) return `${name}=${encodeURIComponent(filter.values[0])}`;
  return `${name}:${filter.min ?? ""}:${filter.max ?? ""}`;
}

/** The filter a fragment's `f` asks for, checked against the listing's columns; null when it names none. */
export function decodeFilter(text, papers) {
  if (!text) return null;
  const range = /^([^:=]+):([^:]*):([^:]*)$/.exec(text);
  const one = /^([^:=]+)=(.*)$/.exec(text);
  const name = decodeURIComponent((range || one || [])[1] || "");
  const column = papers.columns[name];
  if (range) return column?.kind === "number" ? filterFrom(column, name, { min: range[2], max: range[3] }) : null;
  if (one) return column?.kind === "category" ? filterFrom(column, name, { value: decodeURIComponent(one[2]) }) : null;
  return null;
}

/** The columns a filter can use: every listed column with a value to choose (numbers, or categories). */
export function filterChoices(papers) {
  return Object.entries(papers.columns)
    .filter(([, column]) => column.kind === "number" || valuesOf(column).length > 0)
    .map(([name]) => name);
}
