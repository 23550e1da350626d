// How numbers read on the page: positions, zoom levels, similarities, counts, weight shares and legend ends.

/** A map position, as "(x, y)" to two decimals. */
export const mapPosition = (x, y) => `(${x.toFixed(2)}, ${y.toFixed(2)})`;

/** A zoom level relative to the whole map fitted: "1.6×". */
export const zoomText = (zoom) => `${zoom.toFixed(1)}×`;

export const similarityText = (value) => value.toFixed(2);

export const countText = (n) => n.toLocaleString();

/** An aspect's share of the weights, in percent ("–" when every weight is zero). */
export const shareText = (percent) => (percent === null || percent === undefined ? "–" : `${percent}%`);

/** An end of a number column's colour ramp: integers as they are, others to three significant digits. */
export const legendNumber = (value) => (Number.isInteger(value) ? String(value) : value.toPrecision(3));

/** The width in pixels of a bar for a similarity, `full` wide at 1 and empty at 0 or below. */
export const barWidth = (value, full) => Math.round(full * Math.max(0, value));
