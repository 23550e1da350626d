// Talking to the apps: where they are; `api`, which sends one request and turns any failure into an
// Error carrying the service's own message; and `latestWins`, how every kind of request (a search, a
// paper, its neighbours, a draft, a description, a layout) keeps only its latest: the answer to a
// request superseded by a newer one of its kind is dropped, and the latest's failure becomes the page's
// message.

/** A URL on the map app, whose route is this page's own path. */
export const mapApp = (path) => `${location.pathname.replace(/\/$/, "")}${path}`;

/** The search app's route, which the map app writes into <meta name="semcse-search">. */
export const searchRoute = () => document.querySelector('meta[name="semcse-search"]').content.replace(/\/$/, "");

export const searchApp = (path) => `${searchRoute()}${path}`;

/** GET (no body) or POST JSON; a refusal becomes an Error with the service's message and the status. */
export async function api(url, body) {
  let response;
  try {
    response = await fetch(url, body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  } catch (error) {
    throw new Error(`the service did not answer (${error.message})`);
  }
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (!response.ok) {
    const error = new Error(data && data.error ? data.error.message : `${response.status} ${response.statusText}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

/** Why search is off, from its health check's failure: not deployed at `route` (a 404), or not answering. */
export function searchUnavailable(error, route) {
  return error.status === 404
    ? `Search is not served at ${route}: deploy the search app beside the map (semcse serve --app search --index …) to search and read papers.`
    : `Search is unavailable: ${error.message}`;
}

/** Both answers, once both have settled; a refusal of the first wins over one of the second. (With Promise.all
 * the first of two refusals to arrive would win, and the same bad input would read differently from run to run.) */
export async function bothSettled(first, second) {
  const settled = await Promise.allSettled([first, second]);
  const refused = settled.find((outcome) => outcome.status === "rejected");
  if (refused) throw refused.reason;
  return settled.map((outcome) => outcome.value);
}

/** What `send` gives for a request that a newer one of its kind superseded: nothing to show. */
export const SUPERSEDED = Object.freeze({ current: false });

/**
 * Requests of one kind, of which only the latest counts. `send(request, failure)` calls `request()` (it
 * returns a promise) and resolves to {current: true, ok: true, answer}; or, when it fails, hands
 * `report` the message ("failure: the error's message") and resolves to {current: true, ok: false,
 * error}; or resolves to SUPERSEDED when another `send` or a `supersede()` came meanwhile.
 */
export function latestWins(report) {
  let latest = 0;
  return {
    /** A newer ask of this kind that needs no request: whatever is in flight is dropped. */
    supersede() { latest += 1; },
    async send(request, failure = "") {
      const ticket = ++latest;
      try {
        const answer = await request();
        return ticket === latest ? { current: true, ok: true, answer } : SUPERSEDED;
      } catch (error) {
        if (ticket !== latest) return SUPERSEDED;
        report(failure ? `${failure}: ${error.message}` : error.message);
        return { current: true, ok: false, error };
      }
    },
  };
}
