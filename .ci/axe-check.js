// Checks fbeval's HTML pages for accessibility with axe-core, the rule engine
// of the browsers' accessibility tools (WCAG 2 A and AA and best practices), in
// Debian's Chromium: each page at 1280 and 390 px as it loads, and a toolcall
// page again with its first sample open. Any violation fails the check.
// Usage: NODE_PATH=DIR/node_modules node axe-check.js PAGE.html ...
"use strict";
const fs = require("fs");
const path = require("path");
const { chromium } = require("playwright-core");
const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

async function check(page, what) {
  await page.addScriptTag({ content: axeSource });
  const res = await page.evaluate(() => axe.run(document, { resultTypes: ["violations"] }));
  for (const v of res.violations) {
    const n = v.nodes[0];
    console.log(`${what}: ${v.id} (${v.impact}): ${v.help}; ${v.nodes.length} elements, the first ${n.target.join(" ")}: ${(n.failureSummary || "").replace(/\s+/g, " ")}`.slice(0, 600));
  }
  console.log(`${what}: ${res.violations.length === 0 ? "ok" : res.violations.length + " rules violated"} (${res.passes.length} rules passed)`);
  return res.violations.length;
}

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
  let violations = 0;
  for (const file of process.argv.slice(2)) {
    for (const width of [1280, 390]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto("file://" + path.resolve(file));
      const what = `${path.basename(file)} at ${width} px`;
      violations += await check(page, what);
      if (await page.$("#samples tbody tr")) {
        await page.click("#samples tbody tr");
        await page.waitForSelector("#samples .sb-detail:not([hidden])");
        violations += await check(page, what + ", a sample open");
      }
      await page.close();
    }
  }
  await browser.close();
  process.exit(violations === 0 ? 0 : 1);
})().catch((e) => { console.error(e); process.exit(1); });
