// Boots real Pyodide (npm `pyodide`) under Node once, installs wheels with micropip from a
// local folder (no CDN), and runs tests/js/pyodide_calls.py's main() on a list of calls.
//
// usage: node pyodide_run.mjs PYODIDE_DIR WHEEL_DIR CALLS_PY CALLS.json OUT.json
// WHEEL_DIR holds micropip's wheel (loaded with loadPackage) and every wheel to install
// (mounted with NODEFS at /wheels, installed with micropip, deps=False).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, wheelDir, callsPy, callsPath, outPath] = process.argv.slice(2);
const started = Date.now();
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({
  indexURL: pyodideDir + path.sep,
  stdout: (line) => process.stderr.write(`[pyodide] ${line}\n`),
  stderr: (line) => process.stderr.write(`[pyodide] ${line}\n`),
});
const booted = Date.now();
const wheels = fs.readdirSync(wheelDir).filter((name) => name.endsWith(".whl")).sort();
const micropip = wheels.find((name) => name.startsWith("micropip-"));
if (!micropip) throw new Error(`no micropip wheel in ${wheelDir}`);
await pyodide.loadPackage(path.join(wheelDir, micropip));
pyodide.FS.mkdirTree("/wheels");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: wheelDir }, "/wheels");
pyodide.runPython(fs.readFileSync(callsPy, "utf8"));
const main = pyodide.globals.get("main");
const out = await main(
  pyodide.toPy(wheels.filter((name) => name !== micropip)),
  fs.readFileSync(callsPath, "utf8"),
);
const result = JSON.parse(out);
result.timings_ms = { boot: booted - started, total: Date.now() - started };
fs.writeFileSync(outPath, JSON.stringify(result));
