// Draws the dashboard's charts from the JSON the page carries (no inline script: the CSP forbids it).
(function () {
  var source = document.getElementById('painel-dados');
  if (!source || typeof Chart === 'undefined') return;
  var data = JSON.parse(source.textContent);
  var draw = function (id, config) {
    var canvas = document.getElementById(id);
    if (canvas) new Chart(canvas, config);
  };
  draw('grafico-semanal', {
    type: 'line',
    data: {
      labels: data.weeks,
      datasets: [
        { label: 'Período', data: data.received.cur },
        { label: 'Período anterior', data: data.received.prev },
      ],
    },
    options: { animation: false, responsive: true },
  });
  draw('grafico-funil', {
    type: 'bar',
    data: {
      labels: data.funnel.labels,
      datasets: [
        { label: 'Período', data: data.funnel.cur },
        { label: 'Período anterior', data: data.funnel.prev },
      ],
    },
    options: { animation: false, responsive: true },
  });
  draw('grafico-status', {
    type: 'bar',
    data: {
      labels: data.weeks,
      datasets: data.status.map(function (s) {
        return { label: s.label, data: s.values };
      }),
    },
    options: { animation: false, responsive: true, scales: { x: { stacked: true }, y: { stacked: true } } },
  });
  draw('grafico-mix', {
    type: 'doughnut',
    data: { labels: data.mix.labels, datasets: [{ data: data.mix.values }] },
    options: { animation: false, responsive: true },
  });
  document.body.setAttribute('data-graficos', 'prontos');
})();
