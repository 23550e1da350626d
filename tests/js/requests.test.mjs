// Requests: of each kind only the latest counts and its failure becomes the page's message; refusals carry
// the service's own words.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";

import { SUPERSEDED, api, bothSettled, latestWins, searchUnavailable } from "../../semcse/apps/static/requests.js";

/** A promise and the functions that settle it, to answer requests in any order. */
function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((yes, no) => { resolve = yes; reject = no; });
  return { promise, resolve, reject };
}

test("an answer to a superseded request is dropped; the latest's is kept, whichever arrives first", async () => {
  const messages = [];
  const kind = latestWins((text) => messages.push(text));
  const [older, newer] = [deferred(), deferred()];
  const first = kind.send(() => older.promise);
  const second = kind.send(() => newer.promise);
  newer.resolve("new");
  older.resolve("old");
  assert.deepEqual(await first, SUPERSEDED);
  assert.deepEqual(await second, { current: true, ok: true, answer: "new" });
  assert.deepEqual(messages, []);
});

test("the latest's failure is reported, with what failed; a superseded one's is not", async () => {
  const messages = [];
  const kind = latestWins((text) => messages.push(text));
  const [older, newer] = [deferred(), deferred()];
  const first = kind.send(() => older.promise, "The draft could not be placed");
  const second = kind.send(() => newer.promise, "The draft could not be placed");
  older.reject(new Error("ignored"));
  newer.reject(new Error("text has 1,000,000 characters"));
  assert.deepEqual(await first, SUPERSEDED);
  const outcome = await second;
  assert.equal(outcome.ok, false);
  assert.equal(outcome.error.message, "text has 1,000,000 characters");
  assert.deepEqual(messages, ["The draft could not be placed: text has 1,000,000 characters"]);
  assert.deepEqual(await kind.send(() => { throw new Error("at once"); }), { current: true, ok: false, error: new Error("at once") });
  assert.equal(messages[1], "at once"); // no prefix given: the error's own message
});

test("an ask that needs no request still supersedes the one in flight; kinds are independent", async () => {
  const search = latestWins(() => {});
  const paper = latestWins(() => {});
  const pending = deferred();
  const inFlight = search.send(() => pending.promise);
  const other = paper.send(() => Promise.resolve("a paper"));
  search.supersede(); // an empty query: nothing to send, and the old results must not come back
  pending.resolve("stale results");
  assert.deepEqual(await inFlight, SUPERSEDED);
  assert.equal((await other).answer, "a paper");
});

test("both answers once both settled; the first's refusal wins, whichever came first", async () => {
  assert.deepEqual(await bothSettled(Promise.resolve(1), Promise.resolve(2)), [1, 2]);
  const [map, search] = [deferred(), deferred()];
  const both = bothSettled(map.promise, search.promise);
  search.reject(new Error("search refused"));
  map.reject(new Error("map refused"));
  await assert.rejects(both, { message: "map refused" });
  await assert.rejects(bothSettled(Promise.resolve(1), Promise.reject(new Error("second"))), { message: "second" });
});

test("why search is off: not deployed (404), or not answering", () => {
  const missing = Object.assign(new Error("404 Not Found"), { status: 404 });
  assert.match(searchUnavailable(missing, "/search"), /^Search is not served at \/search: deploy the search app/);
  assert.equal(searchUnavailable(new Error("the service did not answer (x)"), "/search"),
    "Search is unavailable: the service did not answer (x)");
});

/** A local server answering each path with [status, body, content type]. */
async function serve(routes) {
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => { body += chunk; });
    request.on("end", () => {
      const [status, text, type] = routes[request.url](request.method, body);
      response.writeHead(status, { "Content-Type": type });
      response.end(text);
    });
  });
  await new Promise((ready) => server.listen(0, "127.0.0.1", ready));
  return { server, base: `http://127.0.0.1:${server.address().port}` };
}

test("api: GET and POST JSON; a refusal is an Error with the service's message and status", async (t) => {
  const json = "application/json";
  const { server, base } = await serve({
    "/points": (method) => [200, JSON.stringify({ method }), json],
    "/place": (method, body) => [200, JSON.stringify({ method, body: JSON.parse(body) }), json],
    "/search": () => [400, JSON.stringify({ error: { message: "unknown paper id 'x'", type: "invalid_request_error" } }), json],
    "/broken": () => [502, "<html>bad gateway</html>", "text/html"],
  });
  t.after(() => server.close());
  assert.deepEqual(await api(`${base}/points`), { method: "GET" });
  assert.deepEqual(await api(`${base}/place`, { text: "a" }), { method: "POST", body: { text: "a" } });
  await assert.rejects(api(`${base}/search`, { id: "x" }), { message: "unknown paper id 'x'", status: 400 });
  await assert.rejects(api(`${base}/broken`), { message: "502 Bad Gateway", status: 502 });
});

test("api: a service that does not answer says so", async () => {
  const { server, base } = await serve({});
  await new Promise((closed) => server.close(closed));
  await assert.rejects(api(`${base}/points`), /^Error: the service did not answer \(/);
});
