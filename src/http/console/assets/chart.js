// Draws the campaign's delivery chart with uPlot from the JSON the page carries (cumulative delivered and
// failed messages over time). Without scripts the same figures are in the table below the chart.
(() => {
  var holder = document.getElementById('chart');
  var source = document.getElementById('chart-data');
  if (!holder || !source || typeof uPlot === 'undefined') return;
  var data = JSON.parse(source.textContent);
  var width = () => Math.max(280, holder.clientWidth - 16);
  var options = {
    width: width(),
    height: 300,
    scales: { x: { time: true } },
    // Times in the account's zone (as in the table), not the browser's.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), data.timeZone),
    series: [
      {},
      { label: data.labels.delivered, stroke: '#1e6b33', width: 2, fill: 'rgba(30,107,51,0.08)' },
      { label: data.labels.failed, stroke: '#a4161a', width: 2 },
    ],
    axes: [{}, { size: 60 }],
  };
  var plot = new uPlot(options, [data.x, data.delivered, data.failed], holder);
  window.addEventListener('resize', () => {
    plot.setSize({ width: width(), height: 300 });
  });
})();
