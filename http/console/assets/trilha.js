// Verifies a collection's trail in the browser, from the export and the published keys alone: the
// same checks as scripts/verify-trail.ts (docs/collection-trail.md), so the verdict owes nothing to
// the server's word. RFC 8785 for our entries is JSON.stringify with keys sorted by UTF-16 code units.
(function () {
  var button = document.getElementById('verificar-cadeia');
  var out = document.getElementById('veredito');
  if (!button || !out || !window.crypto || !crypto.subtle) return;
  var canonical = function (value) {
    if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']';
    if (value && typeof value === 'object') {
      return '{' + Object.keys(value).sort().map(function (k) { return JSON.stringify(k) + ':' + canonical(value[k]); }).join(',') + '}';
    }
    return JSON.stringify(value);
  };
  var utf8 = function (text) { return new TextEncoder().encode(text); };
  var hex = function (buffer) { return Array.from(new Uint8Array(buffer)).map(function (b) { return b.toString(16).padStart(2, '0'); }).join(''); };
  var sha256 = function (text) { return crypto.subtle.digest('SHA-256', utf8(text)).then(hex); };
  var bytes = function (base64) { return Uint8Array.from(atob(base64), function (c) { return c.charCodeAt(0); }); };
  var fromBase64url = function (text) { return bytes(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4)); };
  var importKey = function (pem) {
    var der = bytes(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''));
    return crypto.subtle.importKey('spki', der, { name: 'Ed25519' }, false, ['verify']);
  };
  var show = function (ok, lines) {
    out.className = ok ? 'aviso' : 'erro';
    out.setAttribute('data-verificada', ok ? 'sim' : 'nao');
    out.textContent = '';
    var head = document.createElement('strong');
    head.textContent = ok ? 'Cadeia verificada neste navegador.' : 'Cadeia NÃO verificada.';
    out.appendChild(head);
    lines.forEach(function (line) { var p = document.createElement('div'); p.textContent = line; out.appendChild(p); });
  };
  async function verify() {
    var doc = await (await fetch(button.getAttribute('data-exportacao'), { credentials: 'same-origin' })).json();
    var published = (await (await fetch('/.well-known/collection-trail-keys')).json()).keys;
    var keys = {};
    for (var k of published) keys[k.keyId] = await importKey(k.publicKey);
    var problems = [];
    var previous = doc.genesis;
    var seals = 0;
    for (var i = 0; i < doc.entries.length; i++) {
      var e = doc.entries[i];
      if (e.seq !== i + 1) problems.push('entrada ' + e.seq + ' na posição ' + (i + 1) + ': uma entrada foi removida ou inserida');
      if ((await sha256(canonical(e.entry))) !== e.entryHash) problems.push('entrada ' + e.seq + ': o conteúdo não confere com o hash da entrada');
      if ((await sha256(previous + e.entryHash)) !== e.chainHash) problems.push('entrada ' + e.seq + ': a cadeia está quebrada');
      previous = e.chainHash;
      if (e.seal) {
        seals++;
        var s = e.seal;
        var key = keys[s.keyId];
        var message = canonical({ collectionId: s.collectionId, seq: s.seq, chainHash: s.chainHash, signedAt: s.signedAt, keyId: s.keyId });
        var good = key && (await crypto.subtle.verify({ name: 'Ed25519' }, key, fromBase64url(s.signature), utf8(message)));
        if (!good) problems.push('entrada ' + e.seq + ': selo com assinatura inválida ou chave desconhecida');
        else if (s.collectionId !== doc.collectionId || s.seq !== e.seq || s.chainHash !== e.chainHash) problems.push('entrada ' + e.seq + ': o selo assinou outra cadeia');
      }
    }
    if (doc.entryCount !== doc.entries.length) problems.push('a exportação anuncia ' + doc.entryCount + ' entradas e traz ' + doc.entries.length);
    if (!seals) problems.push('nenhum selo: uma cadeia sem assinatura poderia ter sido recalculada inteira');
    show(problems.length === 0, [doc.entries.length + ' entradas, ' + seals + ' selos conferidos com as chaves publicadas.'].concat(problems));
  }
  button.addEventListener('click', function () {
    button.disabled = true;
    verify().catch(function (error) { show(false, [String(error)]); }).finally(function () { button.disabled = false; });
  });
})();
