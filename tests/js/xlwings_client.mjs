// Runs xlwings Server's own custom-functions client (the custom-functions-code.js the
// server serves to Excel) under Node, against a running server, and calls functions
// through it exactly as Excel would: each argument a 2-D array (a repeating argument an
// array of them, an omitted optional one null), plus the invocation object.
//
// Excel's objects are stand-ins: Office (ready, every requirement set supported),
// Excel.RequestContext (the workbook's name), CustomFunctions (associate, Error and
// ErrorCode) and the HTTP helper the task pane publishes (globalThis.xwRequest, the same
// contract as xlwings Server's static/js/utils.js: resolves {data, status} on 2xx,
// rejects with error.response otherwise). The configuration is the server's own: the
// JSON of <script id="config"> in its /taskpane.html.
//
// usage: node xlwings_client.mjs BASE_URL CALLS.json OUT.json
// CALLS.json: [{"name": "NJ_X", "args": [...]}]; OUT.json: one entry per call,
// {"result": cells} or {"error": {"code": ..., "message": ...}}.
import fs from "node:fs";
import vm from "node:vm";

const [base, callsPath, outPath] = process.argv.slice(2);

const taskpane = await (await fetch(`${base}/taskpane.html`)).text();
const configJson = taskpane.match(
  /<script id="config" type="application\/json">([\s\S]*?)<\/script>/,
);
if (!configJson) throw new Error("no <script id=config> in /taskpane.html");
globalThis.config = JSON.parse(configJson[1]);

globalThis.window = { location: { origin: base } };
globalThis.localStorage = undefined; // not available: the client falls back to a fresh id
globalThis.Office = {
  onReady: async (callback) => {
    if (callback) callback({ host: "Excel", platform: "PC" });
    return { host: "Excel", platform: "PC" };
  },
  context: { requirements: { isSetSupported: () => true } },
};
globalThis.Excel = {
  RequestContext: class {
    constructor() {
      this.workbook = { name: "nj-incentives-test.xlsx", load() {} };
    }
    async sync() {}
  },
};
const registry = {};
class CustomFunctionsError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}
globalThis.CustomFunctions = {
  associate: (name, fn) => {
    registry[name] = fn;
  },
  Error: CustomFunctionsError,
  ErrorCode: { invalidValue: "#VALUE!", notAvailable: "#N/A", invalidNumber: "#NUM!" },
};
globalThis.xlwings = {
  getCultureInfoName: async () => "en-US",
  getDateFormat: async () => "M/d/yyyy",
};
globalThis.xwRequest = {
  post: async (url, body, { headers = {} } = {}) => {
    const clean = Object.fromEntries(Object.entries(headers).filter(([, v]) => v != null));
    const response = await fetch(url, {
      method: "POST",
      headers: clean,
      body: JSON.stringify(body),
    });
    let data = await response.text();
    if ((response.headers.get("Content-Type") || "").includes("application/json") && data) {
      try {
        data = JSON.parse(data);
      } catch {
        // leave as raw text
      }
    }
    const shaped = { data, status: response.status, statusText: response.statusText };
    if (response.status >= 200 && response.status < 300) return shaped;
    const error = new Error(`Request failed with status ${response.status}`);
    error.response = shaped;
    throw error;
  },
};

const code = await (await fetch(`${base}/xlwings/custom-functions-code.js`)).text();
vm.runInThisContext(code, { filename: "custom-functions-code.js" });

const calls = JSON.parse(fs.readFileSync(callsPath, "utf8"));
const out = [];
for (const [index, call] of calls.entries()) {
  const fn = registry[call.name];
  if (!fn) {
    out.push({ missing: call.name });
    continue;
  }
  try {
    out.push({ result: await fn(...call.args, { address: `Sheet1!B${index + 2}` }) });
  } catch (error) {
    out.push({ error: { code: error.code ?? null, message: error.message } });
  }
}
out.push({ registered: Object.keys(registry).sort() });
fs.writeFileSync(outPath, JSON.stringify(out));
