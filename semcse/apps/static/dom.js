// Two helpers for writing the page: `$` finds an element and `el` makes one. Corpus text only ever
// becomes text nodes, never HTML.

export const $ = (selector) => document.querySelector(selector);

/** An element with attributes and children (strings become text nodes; null and undefined are skipped). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}
