// A story's analytics: totals, the series charted with uPlot (vendored, a global), and
// the answers per interaction (those that never answered last, with 0).
import { call, page } from "./api.js";
import { byId, h } from "./ui.js";

const HOUR_MS = 3600 * 1000;
const MAX_DAYS = 366; // the API's longest range
let charts = [];

const percent = (rate) => (rate === null ? "—" : `${(rate * 100).toFixed(1)} %`);
const number = (value, digits = 0) => (value === null ? "—" : value.toFixed(digits));

function totals(report) {
  const t = report.totals;
  const shown = [
    ["Conversations", String(t.conversations)],
    ["Messages", String(t.messages)],
    ["Fallbacks", String(t.fallbacks)],
    ["Fallback rate", percent(t.fallbackRate)],
    ["Containment", percent(t.containment)],
    ["Messages per conversation", number(t.messagesPerConversation, 1)],
    ["Latency p50", `${number(t.latency.p50, 1)} ms`],
    ["Latency p95", `${number(t.latency.p95, 1)} ms`],
    ["Webhook failures", String(t.webhookFailures)],
  ];
  byId("analytics-totals").replaceChildren(
    ...shown.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]),
  );
}

function chart(target, report, series) {
  const times = report.series.map((step) => Date.parse(step.at) / 1000);
  const data = [times, ...series.map((s) => report.series.map(s.value))];
  const element = byId(target);
  const options = {
    width: Math.max(280, element.clientWidth),
    height: 220,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
    series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2 }))],
  };
  element.replaceChildren();
  return new uPlot(options, data, element);
}

function interactions(report) {
  const rows = [
    ...report.interactions.map((i) => [i.name ?? `(deleted) ${i.id}`, i.count]),
    ...report.unanswered.map((i) => [i.name, 0]),
  ];
  byId("analytics-interactions").tBodies[0].replaceChildren(
    ...rows.map(([name, count]) => h("tr", {}, h("td", {}, name), h("td", {}, String(count)))),
  );
}

function fetchReport(from, to, interval) {
  const query = new URLSearchParams({ from: from.toISOString(), to: to.toISOString(), interval });
  for (const name of ["source", "channel"]) {
    const value = byId(`analytics-${name}`).value.trim();
    if (value) query.set(name, value);
  }
  return call("GET", `/stories/${page.story}/analytics?${query}`);
}

// "since the first day": the range from the story's first counted hour (as far back as the
// API's longest range, 366 days), or the last 7 days while nothing is counted.
async function firstDayReport(to, interval) {
  const longest = new Date(to.getTime() - MAX_DAYS * 24 * HOUR_MS);
  const found = await fetchReport(longest, to, interval);
  if (found.firstRecorded === null) return fetchReport(new Date(to.getTime() - 7 * 24 * HOUR_MS), to, interval);
  const first = new Date(found.firstRecorded);
  return first > longest ? fetchReport(first, to, interval) : found;
}

async function load() {
  const chosen = byId("analytics-days").value;
  const interval = byId("analytics-interval").value;
  const to = new Date(Math.ceil(Date.now() / HOUR_MS) * HOUR_MS);
  const report = chosen === "first"
    ? await firstDayReport(to, interval)
    : await fetchReport(new Date(to.getTime() - Number(chosen) * 24 * HOUR_MS), to, interval);
  totals(report);
  charts.forEach((c) => c.destroy());
  charts = [
    chart("chart-messages", report, [
      { label: "Messages", stroke: "#2563eb", value: (s) => s.messages },
      { label: "Conversations", stroke: "#16a34a", value: (s) => s.conversations },
    ]),
    chart("chart-fallbacks", report, [
      { label: "Fallback rate (%)", stroke: "#dc2626", value: (s) => (s.fallbackRate === null ? null : s.fallbackRate * 100) },
    ]),
  ];
  interactions(report);
  document.body.dataset.charted = `${chosen}:${interval}`;
}

export async function start() {
  byId("analytics-days").addEventListener("change", load);
  byId("analytics-interval").addEventListener("change", load);
  byId("analytics-source").addEventListener("change", load);
  byId("analytics-channel").addEventListener("change", load);
  await load();
}
