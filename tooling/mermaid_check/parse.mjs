// Parse every ```mermaid block of the Markdown on standard input with mermaid's own parser
// (jsdom stands in for the browser mermaid expects). Prints "ok" or "ERR <first lines of the
// parser's message>" per block; exit 1 when any block fails.
import { readFileSync } from "fs";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");
const text = readFileSync(0, "utf8");
let rc = 0;
for (const block of text.split("```mermaid").slice(1)) {
  const src = block.split("```")[0];
  try {
    await mermaid.parse(src);
    console.log("ok");
  } catch (e) {
    console.log("ERR " + String(e.message || e).split("\n").slice(0, 4).join(" | "));
    rc = 1;
  }
}
process.exit(rc);
