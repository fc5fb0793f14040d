// The offer page's live estimate of the first installment (the headline formula, without IOF and
// fees, as the page says). Served as a file: the page's CSP runs no inline script.
(function () {
  var f = document.forms[0],
    out = document.getElementById('parcela');
  if (!f || !out) return;
  var i = parseFloat(f.getAttribute('data-taxa')) || 0,
    sac = f.getAttribute('data-sistema') === 'SAC';
  function calc() {
    var p = parseFloat(f.amount.value.replace(/\./g, '').replace(',', '.')) || 0,
      n = +f.termMonths.value;
    var v = sac ? p / n + p * i : i === 0 ? p / n : (p * i) / (1 - Math.pow(1 + i, -n));
    // As formatBRL (domain/shared/money.ts) writes it on the server: a plain space after R$.
    out.textContent = v.toLocaleString('pt-BR', { style: 'currency', currency: 'BRL' }).replace(/\u00a0/g, ' ');
  }
  f.addEventListener('input', calc);
  calc();
})();
