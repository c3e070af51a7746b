// The operators' console through the page, in Debian's Chromium against a real pokerd
// (crates/poker-server/tests/server/browser.rs passes BASE, ADMIN_TOKEN and HANDS_TABLE, a table
// where hands were played, and SHOTS). Everything is done by clicking and typing in the
// console: sign in, tables from presets (a JSON body with several mistakes names them all,
// each with its field),
// clone, live view, close; staff with a role; players found by name and shown with a short
// id, deposit, ledger, lock, new password (admins), a one-time reset code the player uses
// on the player page (told at login who reset it); hands by table as PokerStars text and
// PHH, downloaded; the room's audit, rake and metrics; the audit log; a cashier who may not
// open tables, set passwords or issue codes, whose console is thrown out the moment an
// admin disables her; the staff list's revocations (role, disable, sign out); and fair play (the pair seated
// from one address with the hands they played together, the collusion report sorted by a
// column, a row opening its hands).
import { chromium } from "playwright-core";
import { checkAxe } from "./checks.mjs";

const BASE = process.env.BASE;
const SHOTS = process.env.SHOTS;
const step = (text) => console.log("step: " + text);
function check(cond, text) {
  if (!cond) throw new Error("check failed: " + text);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
const errors = [];
try {
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  page.on("console", (m) => {
    // A refused request (403, 400) is the console's business, shown on the page.
    if (m.type() === "error" && !/status of (4\d\d)/.test(m.text())) errors.push("console error: " + m.text());
  });
  page.on("dialog", (d) => { errors.push(`a native ${d.type()} box (the console asks in its own dialogs): ${d.message()}`); d.dismiss(); });
  const shot = async (name) => { if (SHOTS) await page.screenshot({ path: `${SHOTS}/console-${name}.png`, fullPage: true }); };
  const section = async (name) => {
    await page.click(`#sections button[data-section="${name}"]`);
    await page.waitForSelector(`#${name}:not(.hidden)`);
  };

  step("sign in: a wrong token is refused, the admin token lets in");
  await page.goto(BASE + "/admin");
  await page.fill("#token", "not-the-token");
  await page.click("#token-form button");
  await page.waitForFunction(() => document.querySelector("#sign-in-error").textContent.length > 0);
  await page.fill("#token", process.env.ADMIN_TOKEN);
  await page.click("#token-form button");
  await page.waitForSelector("#sections:not(.hidden)");
  check((await page.locator("#who").textContent()).includes("admin"), "signed in as admin");

  step("tables: a JSON body with several mistakes names them all, each with its field");
  await page.waitForSelector("#preset option", { state: "attached" });
  await page.selectOption("#preset", "stud");
  await page.click("#table-json summary");
  // Filled when the view opens (the details' toggle event comes just after the click).
  await page.waitForFunction(() => document.querySelector("#table-body").value.length > 0);
  const broken = JSON.parse(await page.locator("#table-body").inputValue());
  delete broken.name;
  broken.rules.game = "stood";
  broken.rules.seat_count = "eight";
  broken.rules.colour = "green";
  await page.fill("#table-body", JSON.stringify(broken, null, 2));
  await page.click("#create-json");
  await page.waitForSelector("#json-problems li");
  const problems = await page.locator("#json-problems li").allTextContents();
  for (const p of ["name: missing", "rules.game: ", "rules.seat_count: ", "rules.colour: unknown rule"]) {
    check(problems.some((x) => x.startsWith(p)), `${p} among the problems, each with its field: ${problems.join(" | ")}`);
  }
  await shot("table-problems");
  await page.click("#table-json summary");

  step("tables: create from the stud preset, see it live, clone it, close the clone");
  await page.selectOption("#preset", "stud");
  await page.click("#create-table");
  await page.waitForSelector("#table-live:not(.hidden) h3");
  check((await page.locator("#table-live h3").textContent()).includes("FL 7 Card Stud 2/4"), "the live view of the new table");
  const studRow = page.locator("#table-list tbody tr", { hasText: "FL 7 Card Stud 2/4" }).first();
  await studRow.locator("button", { hasText: "Clone" }).click();
  await page.waitForSelector("#ask-dialog[open] #ask-input-row:not(.hidden)");
  check((await page.inputValue("#ask-input")) === "FL 7 Card Stud 2/4 (2)", "the clone's name proposed in the page's dialog");
  await checkAxe(page, "the console's question dialog");
  await page.click("#ask-yes");
  await page.waitForSelector('#table-list tbody tr:has-text("FL 7 Card Stud 2/4 (2)")');
  const cloneRow = page.locator("#table-list tbody tr", { hasText: "FL 7 Card Stud 2/4 (2)" });
  await cloneRow.locator("button", { hasText: "Close" }).click();
  await page.waitForSelector("#ask-dialog[open]");
  await page.click("#ask-yes");
  await page.waitForFunction(() => [...document.querySelectorAll("#table-list tbody tr")].some((r) => r.textContent.includes("(2)") && r.textContent.includes("closed")));
  await shot("tables");

  step("staff: add a cashier");
  await section("staff");
  await page.fill("#new-staff-name", "Carla");
  await page.fill("#new-staff-password", "cashier-pass-1");
  await page.selectOption("#new-staff-role", "cashier");
  await page.click("#staff-create button");
  await page.waitForSelector('#staff-list tbody tr:has-text("Carla")');

  step("players: find ann by name, deposit, read the ledger, lock and unlock, set a password");
  await section("players");
  await page.fill("#player-q", "AN");
  await page.click("#player-search button");
  // The search narrows the list to the names holding "an", any case.
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll("#player-list tbody tr")].map((r) => r.textContent);
    return rows.some((r) => r.startsWith("ann")) && !rows.some((r) => r.startsWith("ben"));
  });
  await page.locator('#player-list tbody tr:has-text("ann") button').click();
  await page.waitForSelector("#player-detail:not(.hidden)");
  const before = Number((await page.locator("#player-summary").textContent()).match(/Wallet (\d+)/)[1]);
  await page.fill("#money-amount", "250");
  await page.click("#deposit");
  await page.waitForFunction((b) => (document.querySelector("#player-summary").textContent.match(/Wallet (\d+)/) || [])[1] == b + 250, before);
  await page.waitForSelector("#ledger tbody tr");
  await page.click("#lock");
  await page.waitForFunction(() => document.querySelector("#player-summary").textContent.includes("locked"));
  await page.click("#lock");
  await page.waitForFunction(() => !document.querySelector("#player-summary").textContent.includes("locked"));
  await page.fill("#new-password", "a-new-password");
  await page.click("#set-password");
  await page.waitForFunction(() => document.querySelector("#notice").textContent.includes("Password set"));
  const annId = await page.locator("#player-name code.id").getAttribute("title");
  const shortId = await page.locator("#player-name code.id").textContent();
  check(/^[0-9a-f]{8}$/.test(shortId) && annId.replace(/-/g, "").startsWith(shortId), `the name beside a short id: ${shortId} of ${annId}`);
  check((await page.locator("#player-name").textContent()).startsWith("ann"), "the name first");

  step("players: a one-time reset code, shown once, used by the player on the player page");
  await page.click("#reset-code");
  await page.waitForSelector("#ask-dialog[open]");
  await page.click("#ask-yes");
  await page.waitForSelector("#code-shown:not(.hidden) code.reset-code");
  const code = await page.locator("#code-shown code.reset-code").textContent();
  check(/^[0-9A-Z]{5}(-[0-9A-Z]{5}){3}$/.test(code), "a code to read out: " + code);
  await shot("players");
  const playerContext = await browser.newContext({ viewport: { width: 1024, height: 768 } });
  const playerPage = await playerContext.newPage();
  playerPage.on("pageerror", (e) => errors.push("player page error: " + e.message));
  await playerPage.goto(BASE + "/");
  await playerPage.click("#reset-box summary");
  await playerPage.fill("#reset-name", "ann");
  await playerPage.fill("#reset-code", "not-the-code");
  await playerPage.fill("#reset-password", "ann-chose-this");
  await playerPage.click("#reset-submit");
  await playerPage.waitForFunction(() => document.querySelector("#reset-error").textContent.includes("code"));
  await playerPage.fill("#reset-code", code.toLowerCase());
  await playerPage.click("#reset-submit");
  await playerPage.waitForSelector("#lobby-view:not(.hidden)");
  await playerPage.waitForFunction(() => document.querySelector("#toast").textContent.includes("reset by the card room's operator"));
  await playerContext.close();

  step("hands: by table, as PokerStars text and PHH, downloadable");
  await section("hands");
  await page.waitForSelector(`#hand-table option[value="${process.env.HANDS_TABLE}"]`, { state: "attached" });
  await page.selectOption("#hand-table", process.env.HANDS_TABLE);
  await page.click("#hand-search button");
  await page.waitForSelector("#hand-list tbody tr button");
  await page.locator("#hand-list tbody tr button").first().click();
  await page.waitForFunction(() => document.querySelector("#hand-text").textContent.includes("PokerStars Hand #"));
  await page.click("#show-phh");
  await page.waitForFunction(() => document.querySelector("#hand-text").textContent.includes("variant"));
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
  check(download.suggestedFilename().endsWith(".phh"), "the PHH downloads: " + download.suggestedFilename());
  await shot("hands");

  step("the room: the books balance, rake and metrics");
  await section("room");
  await page.waitForFunction(() => document.querySelector("#audit-status").textContent.includes("balance"));
  check((await page.locator("#audit-status").textContent()).includes("\u2714"), "the audit holds");
  await page.waitForSelector("#rake tbody tr.total");
  check(Number((await page.locator("#metrics").textContent()).match(/Hands dealt(\d+)/)[1]) > 0, "metrics show hands dealt");
  await shot("room");

  step("fair play: the pair seated from one address, with the hands they played together");
  await section("fairplay");
  await page.waitForSelector('#flag-list tbody tr:has-text("127.0.0.1")');
  const flag = page.locator('#flag-list tbody tr:has-text("127.0.0.1")');
  const flagText = await flag.textContent();
  check(/ben \([0-9a-f]{8}\)/.test(flagText) && /ann \([0-9a-f]{8}\)/.test(flagText), "names beside short ids: " + flagText);
  // Every hand of the table (two or more were played) had them both.
  const together = Number((await flag.locator("td").allTextContents())[5]);
  check(together >= 2, "hands together: " + flagText);
  await flag.locator("button", { hasText: "Hands" }).click();
  await page.waitForSelector("#pair-detail:not(.hidden) #pair-hands tbody tr");
  check(await page.locator("#pair-hands tbody tr").count() === together, "the hands they played together");
  await page.locator("#pair-hands tbody tr button").first().click();
  await page.waitForFunction(() => document.querySelector("#fp-hand-text").textContent.includes("PokerStars Hand #"));

  step("fair play: the collusion report, sorted by a column, a row opening its hands");
  await page.waitForSelector('#pair-list tbody tr:has-text("ann")');
  const pairRow = page.locator('#pair-list tbody tr:has-text("ann")').first();
  const cells = await pairRow.locator("td").allTextContents();
  check(cells[1] === String(together) && cells[6] === "127.0.0.1", "their hands together, one shared address: " + cells.join(" | "));
  check((await page.locator("#pair-summary").textContent()).startsWith(`${together} hands`), "the window read");
  await page.click('#pair-list th[data-sort="hands"] button');
  await page.waitForSelector('#pair-list th[data-sort="hands"][aria-sort="descending"]');
  await page.locator('#pair-list tbody tr:has-text("ann") button', { hasText: "Hands" }).first().click();
  await page.waitForFunction((n) => document.querySelector("#pair-title").textContent.endsWith(`: ${n} hands`), together);
  check(await page.locator("#pair-hands tbody tr").count() === together, "the pair's hands");
  await shot("fairplay");

  step("the audit log names who did what");
  await section("audit");
  await page.waitForSelector("#audit-log tbody tr");
  const log = await page.locator("#audit-log").textContent();
  const actions = await page.$$eval("#audit-log tbody tr", (rows) => rows.map((r) => r.dataset.action));
  for (const action of ["create_table", "clone_table", "close_table", "create_staff", "deposit", "lock_player", "unlock_player", "reset_password", "issue_reset_code", "use_reset_code"]) {
    check(actions.includes(action), `${action} in the audit log`);
  }
  check(log.includes(`ann (${shortId})`), "a player in the audit log: the name beside the short id");
  check(log.includes(`ann (${shortId}) set a new password with a reset code`), "the player's own reset, in words");
  await shot("audit");

  step("a cashier signs in (another browser): no staff section, no table, no password, no code");
  const cashierContext = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const cashier = await cashierContext.newPage();
  cashier.on("pageerror", (e) => errors.push("cashier page error: " + e.message));
  cashier.on("console", (m) => { if (m.type() === "error" && !/status of (4\d\d)/.test(m.text())) errors.push("cashier console error: " + m.text()); });
  await cashier.goto(BASE + "/admin");
  await cashier.fill("#staff-name", "Carla");
  await cashier.fill("#staff-password", "cashier-pass-1");
  await cashier.click("#staff-form button");
  await cashier.waitForSelector("#sections:not(.hidden)");
  check((await cashier.locator("#who").textContent()).includes("cashier"), "signed in as the cashier");
  check(await cashier.locator('#sections button[data-section="staff"].hidden').count() === 1, "no staff section for a cashier");
  await cashier.waitForSelector("#preset option", { state: "attached" });
  await cashier.click("#create-table");
  await cashier.waitForSelector("#table-problems li");
  check((await cashier.locator("#table-problems").textContent()).includes("cashier may not"), "the role is refused");
  check(await cashier.locator("#password-row.hidden").count() === 1 && await cashier.locator("#reset-code.hidden").count() === 1, "no password or code for a cashier");

  step("staff: the admin demotes, disables and signs out; the cashier's console is thrown out at once");
  await section("staff");
  const carla = page.locator("#staff-list tbody tr", { hasText: "Carla" });
  await carla.locator("select.role").selectOption("floor");
  await page.waitForFunction(() => document.querySelector("#notice").textContent.includes("Carla is now floor"));
  await page.locator("#staff-list tbody tr", { hasText: "Carla" }).locator("button", { hasText: "Disable" }).click();
  await page.waitForFunction(() => [...document.querySelectorAll("#staff-list tbody tr")].some((r) => r.textContent.includes("Carla") && r.textContent.includes("disabled")));
  await cashier.click('#sections button[data-section="players"]');
  await cashier.waitForSelector("#sign-in:not(.hidden)");
  check((await cashier.locator("#sign-in-error").textContent()).includes("session has ended"), "told why");
  await cashier.fill("#staff-name", "Carla");
  await cashier.fill("#staff-password", "cashier-pass-1");
  await cashier.click("#staff-form button");
  await cashier.waitForFunction(() => document.querySelector("#sign-in-error").textContent.includes("disabled"));
  await page.locator("#staff-list tbody tr", { hasText: "Carla" }).locator("button", { hasText: "Enable" }).click();
  await page.waitForFunction(() => [...document.querySelectorAll("#staff-list tbody tr")].some((r) => r.textContent.includes("Carla") && r.textContent.includes("enabled")));
  await cashier.click("#staff-form button");
  await cashier.waitForSelector("#sections:not(.hidden)");
  check((await cashier.locator("#who").textContent()).includes("floor"), "back, with her new role");
  await page.locator("#staff-list tbody tr", { hasText: "Carla" }).locator("button", { hasText: "Sign out" }).click();
  await page.waitForFunction(() => document.querySelector("#notice").textContent.includes("1 session(s) ended"));
  await cashier.click('#sections button[data-section="tables"]');
  await cashier.waitForSelector("#sign-in:not(.hidden)");
  await shot("staff");
  await section("audit");
  await page.waitForFunction(() => ["set_staff_role", "disable_staff", "enable_staff", "sign_out_staff"].every((a) => document.querySelector(`#audit-log tbody tr[data-action="${a}"]`)));
  await cashierContext.close();

  check(errors.length === 0, "no page or console error:\n" + errors.join("\n"));
  console.log("console: ok");
} finally {
  await browser.close();
}
