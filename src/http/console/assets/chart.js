// Draws the campaign's delivery chart with uPlot from the JSON the page carries (cumulative delivered and
// failed messages over time). Times are shown in the account's time zone as dd/mm hh:mm (the console's date
// format), ticks are whole seconds or more and whole messages, each axis named in the page's language; without
// scripts the same figures are in the table below the chart.
(() => {
  var holder = document.getElementById('chart');
  var source = document.getElementById('chart-data');
  if (!holder || !source || typeof uPlot === 'undefined') return;
  var data = JSON.parse(source.textContent);
  var parts = (opts) =>
    new Intl.DateTimeFormat('en-GB', Object.assign({ timeZone: data.timeZone, hourCycle: 'h23' }, opts));
  var clock = parts({ hour: '2-digit', minute: '2-digit', second: '2-digit' });
  var day = parts({ day: '2-digit', month: '2-digit' });
  var full = parts({
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  var count = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  var span = data.x[data.x.length - 1] - data.x[0];
  var tick = (s) => {
    var d = new Date(s * 1000);
    var time = clock.format(d);
    if (span < 3600) return time.slice(span < 120 ? 3 : 0, span < 120 ? 8 : 5);
    return span < 86400 ? time.slice(0, 5) : `${day.format(d)} ${time.slice(0, 5)}`;
  };
  var seconds = [
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800,
  ];
  var whole = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1e6];
  var width = () => Math.max(280, holder.clientWidth - 16);
  var options = {
    width: width(),
    height: 300,
    scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    series: [
      {
        label: data.labels.time,
        value: (_u, v) => (v == null ? '' : full.format(new Date(v * 1000)).replace(',', '')),
      },
      {
        label: data.labels.delivered,
        stroke: '#1e6b33',
        width: 2,
        fill: 'rgba(30,107,51,0.08)',
        value: (_u, v) => (v == null ? '' : count.format(v)),
      },
      { label: data.labels.failed, stroke: '#a4161a', width: 2, value: (_u, v) => (v == null ? '' : count.format(v)) },
    ],
    axes: [
      { label: data.labels.time, incrs: seconds, space: 70, values: (_u, splits) => splits.map(tick) },
      { label: data.labels.count, size: 60, incrs: whole, values: (_u, splits) => splits.map((v) => count.format(v)) },
    ],
  };
  var plot = new uPlot(options, [data.x, data.delivered, data.failed], holder);
  window.addEventListener('resize', () => {
    plot.setSize({ width: width(), height: 300 });
  });
})();
