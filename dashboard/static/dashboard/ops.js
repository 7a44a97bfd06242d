/* Platform admin pages: Chart.js charts from the page's JSON, and the benchmark progress bar.
   Plain JavaScript; the tables beside each chart carry the same numbers without it. */
(function () {
  "use strict";
  var COLORS = { router: "#1f6f4a", native: "#2f5fa7", small: "#b0641d" };
  var EXTRA = ["#7a3e9d", "#a1261c", "#3b8686", "#6b6b6b"];

  function color(name, i) { return COLORS[name] || EXTRA[i % EXTRA.length]; }

  function readData() {
    var node = document.getElementById("chart-data");
    return node ? JSON.parse(node.textContent) : null;
  }

  function chart(id, config) {
    var canvas = document.getElementById(id);
    if (!canvas || typeof Chart === "undefined") return null;
    config.options = Object.assign({ responsive: true, maintainAspectRatio: false, animation: false }, config.options || {});
    return new Chart(canvas, config);
  }

  function drawCharts(data) {
    var modes = Object.keys(data.passRate);
    chart("chart-pass-rate", {
      type: "line",
      data: {
        datasets: modes.map(function (mode, i) {
          return {
            label: mode, borderColor: color(mode, i), backgroundColor: color(mode, i),
            data: data.passRate[mode].map(function (p, n) { return { x: n + 1, y: p.y, t: p.x }; })
          };
        })
      },
      options: {
        parsing: false,
        scales: { x: { type: "linear", title: { display: true, text: "run (oldest → newest)" }, ticks: { precision: 0 } },
                  y: { min: 0, max: 100, title: { display: true, text: "pass %" } } },
        plugins: { title: { display: true, text: "Pass rate per mode over time" } }
      }
    });

    var categories = Array.from(new Set(data.categories.map(function (c) { return c.category; })));
    var catModes = Array.from(new Set(data.categories.map(function (c) { return c.mode; })));
    chart("chart-categories", {
      type: "bar",
      data: {
        labels: categories,
        datasets: catModes.map(function (mode, i) {
          return {
            label: mode, backgroundColor: color(mode, i),
            data: categories.map(function (cat) {
              var hit = data.categories.find(function (c) { return c.mode === mode && c.category === cat; });
              return hit ? hit.rate : null;
            })
          };
        })
      },
      options: { scales: { y: { min: 0, max: 100, title: { display: true, text: "pass %" } } },
                 plugins: { title: { display: true, text: "Pass rate per category" } } }
    });

    chart("chart-latency", {
      type: "bar",
      data: {
        labels: data.latency.map(function (m) { return m.mode; }),
        datasets: [
          { label: "median ms", backgroundColor: "#1f6f4a", data: data.latency.map(function (m) { return m.median; }) },
          { label: "p90 ms", backgroundColor: "#9cc9b0", data: data.latency.map(function (m) { return m.p90; }) }
        ]
      },
      options: { plugins: { title: { display: true, text: "Turn latency per mode" } } }
    });

    chart("chart-outcomes", {
      type: "bar",
      data: {
        labels: data.outcomes.map(function (m) { return m.mode; }),
        datasets: [
          { label: "guard blocks", backgroundColor: "#a1261c", data: data.outcomes.map(function (m) { return m.blocked; }) },
          { label: "refused writes", backgroundColor: "#b0641d", data: data.outcomes.map(function (m) { return m.refused; }) },
          { label: "clarifying questions", backgroundColor: "#2f5fa7", data: data.outcomes.map(function (m) { return m.clarified; }) },
          { label: "escalations", backgroundColor: "#7a3e9d", data: data.outcomes.map(function (m) { return m.escalations; }) }
        ]
      },
      options: { scales: { y: { ticks: { precision: 0 } } },
                 plugins: { title: { display: true, text: "Guard blocks, refusals, clarifications, escalations" } } }
    });

    var dayModes = Object.keys(data.turnsPerDay);
    chart("chart-days", {
      type: "line",
      data: {
        labels: data.days,
        datasets: dayModes.map(function (mode, i) {
          return { label: mode, borderColor: color(mode, i), backgroundColor: color(mode, i), data: data.turnsPerDay[mode] };
        })
      },
      options: { scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
                 plugins: { title: { display: true, text: "Turns per day" } } }
    });

    chart("chart-roles", {
      type: "bar",
      data: {
        labels: data.roles.map(function (r) { return r.role; }),
        datasets: [
          { label: "median ms", backgroundColor: "#2f5fa7", data: data.roles.map(function (r) { return r.median; }) },
          { label: "p90 ms", backgroundColor: "#a9bfe3", data: data.roles.map(function (r) { return r.p90; }) }
        ]
      },
      options: { indexAxis: "y", plugins: { title: { display: true, text: "Model call duration per role" } } }
    });
  }

  /* The progress bar: poll the job's JSON every second until it finishes. */
  function watch(box, url) {
    var bar = document.getElementById("bench-bar");
    var status = document.getElementById("bench-status");
    box.hidden = false;
    function tick() {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
        .then(function (res) {
          var p = res.body;
          if (!res.ok) { status.textContent = p.error || "Progress is not available."; return; }
          bar.value = p.percent; bar.textContent = p.percent + "%";
          var total = p.total == null ? "?" : p.total;
          if (p.state === "done") {
            status.textContent = "Done: " + p.passed + " of " + total + " turns passed. Reload to see it in the charts.";
          } else if (p.state === "failed") {
            status.textContent = "Failed: " + (p.error || "see the run's record") + ".";
          } else {
            status.textContent = (p.state === "queued" ? "Queued" : "Running") + ": turn " + p.done + " of " + total +
              ", " + p.passed + " passed.";
          }
          if (!p.finished) window.setTimeout(tick, 1000);
        })
        .catch(function () { status.textContent = "Lost contact; retrying…"; window.setTimeout(tick, 2000); });
    }
    tick();
  }

  function setUpBench() {
    var box = document.getElementById("bench-progress");
    var form = document.getElementById("bench-form");
    if (!box) return;
    if (box.dataset.url) watch(box, box.dataset.url);
    if (!form || !window.fetch) return;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var status = document.getElementById("bench-status");
      fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin",
                           headers: { Accept: "application/json" } })
        .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
        .then(function (res) {
          if (!res.ok) { box.hidden = false; status.textContent = res.body.error || "The run could not start."; return; }
          history.replaceState(null, "", "?job=" + res.body.job + "#bench");
          watch(box, res.body.progress);
        })
        .catch(function () { form.submit(); });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var data = readData();
    if (data) drawCharts(data);
    setUpBench();
  });
})();
