// Draws the pages' charts with uPlot from the JSON each page carries: every `.chart` element names its data's
// script element in `data-source` (the campaign page's `#chart` reads `#chart-data`). The data: `x` (seconds
// since the epoch), `series` (label, values, colour; the campaign's delivered and failed lines when absent),
// `labels` (the axes' names in the page's language), `timeZone`, and `step: 'month'` for one point a month.
// Times are shown in the given time zone as dd/mm hh:mm (the console's date format), or mm/yyyy a month a point;
// ticks are whole seconds or more and whole units; without scripts the same figures are in a table by the chart.
(() => {
  if (typeof uPlot === 'undefined') return;
  var holders = document.querySelectorAll('.chart[data-source], #chart');
  holders.forEach((holder) => {
    var source = document.getElementById(holder.getAttribute('data-source') || 'chart-data');
    if (source) draw(holder, JSON.parse(source.textContent));
  });

  function draw(holder, data) {
    var parts = (opts) =>
      new Intl.DateTimeFormat('en-GB', Object.assign({ timeZone: data.timeZone, hourCycle: 'h23' }, opts));
    var clock = parts({ hour: '2-digit', minute: '2-digit', second: '2-digit' });
    var day = parts({ day: '2-digit', month: '2-digit' });
    var month = parts({ month: '2-digit', year: 'numeric' });
    var full = parts({
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    var monthly = data.step === 'month';
    var count = new Intl.NumberFormat('en-US', { maximumFractionDigits: data.decimals || 0 });
    var span = data.x[data.x.length - 1] - data.x[0];
    var tick = (s) => {
      var d = new Date(s * 1000);
      if (monthly) return month.format(d);
      var time = clock.format(d);
      if (span < 3600) return time.slice(span < 120 ? 3 : 0, span < 120 ? 8 : 5);
      return span < 86400 ? time.slice(0, 5) : `${day.format(d)} ${time.slice(0, 5)}`;
    };
    var seconds = [
      1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800,
    ];
    var whole = [
      1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1e6,
    ];
    var series = data.series || [
      { label: data.labels.delivered, values: data.delivered, color: '#1e6b33', fill: 'rgba(30,107,51,0.08)' },
      { label: data.labels.failed, values: data.failed, color: '#a4161a' },
    ];
    var width = () => Math.max(280, holder.clientWidth - 16);
    var options = {
      width: width(),
      height: 300,
      scales: {
        x: { time: false },
        y: { range: (_u, min, max) => [Math.min(0, min), Math.max(1, max)] },
      },
      series: [
        {
          label: data.labels.time,
          value: (_u, v) =>
            v == null
              ? ''
              : monthly
                ? month.format(new Date(v * 1000))
                : full.format(new Date(v * 1000)).replace(',', ''),
        },
      ].concat(
        series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          fill: s.fill,
          value: (_u, v) => (v == null ? '' : count.format(v)),
        })),
      ),
      axes: [
        {
          label: data.labels.time,
          // A month a point needs steps of months (uPlot leaves out an axis none of whose steps fits).
          incrs: monthly ? seconds.concat([2629800, 7889400, 15778800, 31557600]) : seconds,
          // A month a point: ticks at the months themselves, the last one always (every fourth on a narrow screen).
          splits: monthly
            ? () => data.x.filter((_x, i) => (data.x.length - 1 - i) % (width() < 500 ? 4 : 1) === 0)
            : undefined,
          space: 70,
          values: (_u, splits) => splits.map(tick),
        },
        {
          label: data.labels.count,
          size: 70,
          incrs: whole,
          values: (_u, splits) => splits.map((v) => count.format(v)),
        },
      ],
    };
    var plot = new uPlot(options, [data.x].concat(series.map((s) => s.values)), holder);
    window.addEventListener('resize', () => {
      plot.setSize({ width: width(), height: 300 });
    });
  }
})();
