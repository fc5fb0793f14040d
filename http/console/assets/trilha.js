// Verifies a collection's trail in the browser, from the export and the published keys alone: the
// checks of scripts/verify-trail.ts (docs/collection-trail.md) but the TSA's signature on each
// timestamp, so the verdict owes nothing to the server's word. RFC 8785 for our entries is JSON.stringify with keys sorted by UTF-16 code units.
(function () {
  var button = document.getElementById('verificar-cadeia');
  var out = document.getElementById('veredito');
  if (!button || !out || !window.crypto || !crypto.subtle) return;
  var canonical = function (value) {
    if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']';
    if (value && typeof value === 'object') {
      return (
        '{' +
        Object.keys(value)
          .sort()
          .map(function (k) {
            return JSON.stringify(k) + ':' + canonical(value[k]);
          })
          .join(',') +
        '}'
      );
    }
    return JSON.stringify(value);
  };
  var utf8 = function (text) {
    return new TextEncoder().encode(text);
  };
  var hex = function (buffer) {
    return Array.from(new Uint8Array(buffer))
      .map(function (b) {
        return b.toString(16).padStart(2, '0');
      })
      .join('');
  };
  var sha256 = function (text) {
    return crypto.subtle.digest('SHA-256', utf8(text)).then(hex);
  };
  var bytes = function (base64) {
    return Uint8Array.from(atob(base64), function (c) {
      return c.charCodeAt(0);
    });
  };
  var fromBase64url = function (text) {
    return bytes(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4));
  };
  var importKey = function (pem) {
    var der = bytes(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''));
    return crypto.subtle.importKey('spki', der, { name: 'Ed25519' }, false, ['verify']).then(function (key) {
      // The service names a key by its public key: a key published under another's id is caught.
      return crypto.subtle.digest('SHA-256', der).then(function (digest) {
        return { key: key, keyId: 'ed25519-' + hex(digest).slice(0, 16) };
      });
    });
  };
  // The few DER shapes of an RFC 3161 token this page reads: [tag, content start, end] of one element, its children.
  var node = function (b, at) {
    var length = b[at + 1];
    var start = at + 2;
    if (length & 0x80) {
      var n = length & 0x7f;
      length = 0;
      for (var i = 0; i < n; i++) length = length * 256 + b[start++];
    }
    return { tag: b[at], start: start, end: start + length };
  };
  var children = function (b, parent) {
    var out = [];
    for (var at = parent.start; at < parent.end; at = out[out.length - 1].end) out.push(node(b, at));
    return out;
  };
  var SHA256_OID = '608648016503040201';
  // ContentInfo > [0] SignedData > encapContentInfo > [0] OCTET STRING TSTInfo > messageImprint, genTime.
  var readTimestamp = function (base64) {
    var b = bytes(base64);
    var signedData = children(b, children(b, children(b, node(b, 0))[1])[0]);
    var tstInfo = node(b, children(b, children(b, signedData[2])[1])[0].start);
    var fields = children(b, tstInfo);
    var imprint = children(b, fields[2]);
    var algorithm = children(b, imprint[0])[0];
    var time = new TextDecoder().decode(b.subarray(fields[4].start, fields[4].end));
    var t = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\.\d+)?Z$/.exec(time);
    if (!t || fields[4].tag !== 0x18) throw new Error('genTime ilegível');
    return {
      sha256: hex(b.subarray(algorithm.start, algorithm.end)) === SHA256_OID,
      imprint: hex(b.subarray(imprint[1].start, imprint[1].end)),
      genTime: t[1] + '-' + t[2] + '-' + t[3] + 'T' + t[4] + ':' + t[5] + ':' + t[6] + (t[7] || '') + 'Z',
    };
  };
  var show = function (ok, lines) {
    out.className = ok ? 'aviso' : 'erro';
    out.setAttribute('data-verificada', ok ? 'sim' : 'nao');
    out.textContent = '';
    var head = document.createElement('strong');
    head.textContent = ok ? 'Cadeia verificada neste navegador.' : 'Cadeia NÃO verificada.';
    out.appendChild(head);
    lines.forEach(function (line) {
      var p = document.createElement('div');
      p.textContent = line;
      out.appendChild(p);
    });
  };
  var sealMessage = function (s) {
    return canonical({ collectionId: s.collectionId, seq: s.seq, chainHash: s.chainHash, signedAt: s.signedAt, keyId: s.keyId });
  };
  async function signatureHolds(s, keys) {
    var key = keys[s.keyId];
    return !!key && crypto.subtle.verify({ name: 'Ed25519' }, key.key, fromBase64url(s.signature), utf8(sealMessage(s)));
  }
  // The seal's timestamp covers this seal: its imprint is SHA-256(JCS of the seal with its signature), as
  // scripts/verify-trail.ts checks. The TSA's signature and chain are the offline verifier's (no TSA root here).
  async function checkTimestamp(s, keys, delay, problems) {
    var stamp;
    try {
      stamp = readTimestamp(s.timestamp);
    } catch {
      problems.push('entrada ' + s.seq + ': carimbo do tempo ilegível');
      return null;
    }
    var digest = await sha256(canonical({ collectionId: s.collectionId, seq: s.seq, chainHash: s.chainHash, signedAt: s.signedAt, keyId: s.keyId, signature: s.signature }));
    if (!stamp.sha256 || stamp.imprint !== digest) {
      problems.push('entrada ' + s.seq + ': o carimbo do tempo não cobre este selo (cobre outro conteúdo)');
      return null;
    }
    var retiredAt = keys[s.keyId].retiredAt;
    if (retiredAt && Date.parse(stamp.genTime) > Date.parse(retiredAt) + delay * 1000) {
      problems.push('entrada ' + s.seq + ': carimbado em ' + stamp.genTime + ', depois que a chave ' + s.keyId + ' foi aposentada (' + retiredAt + ')');
      return null;
    }
    return stamp.genTime;
  }
  var MAX_SEAL_LINES = 50;
  async function verify() {
    var doc = await (await fetch(button.getAttribute('data-exportacao'), { credentials: 'same-origin' })).json();
    var published = (await (await fetch('/.well-known/collection-trail-keys')).json()).keys;
    var problems = [];
    var keys = {};
    for (var k of published) {
      var imported = await importKey(k.publicKey);
      if (imported.keyId !== k.keyId) problems.push('chave ' + k.keyId + ': o identificador não corresponde à chave pública');
      else keys[k.keyId] = { key: imported.key, retiredAt: k.retiredAt };
    }
    var previous = doc.genesis;
    var seals = 0;
    var lastSealed = 0;
    var times = [];
    for (var i = 0; i < doc.entries.length; i++) {
      var e = doc.entries[i];
      if (e.seq !== i + 1) problems.push('entrada ' + e.seq + ' na posição ' + (i + 1) + ': uma entrada foi removida ou inserida');
      if ((await sha256(canonical(e.entry))) !== e.entryHash) problems.push('entrada ' + e.seq + ': o conteúdo não confere com o hash da entrada');
      if ((await sha256(previous + e.entryHash)) !== e.chainHash) problems.push('entrada ' + e.seq + ': a cadeia está quebrada');
      previous = e.chainHash;
      if (e.seal) {
        seals++;
        var s = e.seal;
        if (!(await signatureHolds(s, keys))) problems.push('entrada ' + e.seq + ': selo com assinatura inválida ou chave desconhecida');
        else if (s.collectionId !== doc.collectionId || s.seq !== e.seq || s.chainHash !== e.chainHash) problems.push('entrada ' + e.seq + ': o selo assinou outra cadeia');
        else {
          lastSealed = e.seq;
          var time = s.timestamp ? await checkTimestamp(s, keys, doc.sealMaxDelaySeconds, problems) : null;
          times.push(
            'selo na entrada ' +
              e.seq +
              ' (chave ' +
              s.keyId +
              '): ' +
              (time ? 'carimbo do tempo de ' + time : s.timestamp ? 'carimbo do tempo inválido' : 'sem carimbo do tempo (hora declarada pelo serviço)'),
          );
        }
      }
    }
    if (doc.entryCount !== doc.entries.length) problems.push('a exportação anuncia ' + doc.entryCount + ' entradas e traz ' + doc.entries.length);
    if (!seals) problems.push('nenhum selo: uma cadeia sem assinatura poderia ter sido recalculada inteira');
    // The export's signed head names its last entry (entries dropped from the end are caught), and every
    // entry older than the sealing delay at the export has a seal at or after it (a cut in the database).
    var head = doc.head;
    var last = doc.entries[doc.entries.length - 1];
    if (!head) problems.push('a exportação não traz a cabeça assinada: entradas do fim poderiam ter sido removidas');
    else if (!(await signatureHolds(head, keys))) problems.push('a cabeça da exportação tem assinatura inválida ou chave desconhecida');
    else if (head.collectionId !== doc.collectionId || head.seq !== (last ? last.seq : 0))
      problems.push('a cabeça da exportação nomeia a entrada ' + head.seq + ' e a exportação termina na entrada ' + (last ? last.seq : 0) + ': entradas do fim foram removidas');
    else if (head.chainHash !== last.chainHash) problems.push('a cabeça da exportação assinou outra cadeia na entrada ' + head.seq);
    else if (lastSealed < last.seq && (Date.parse(head.signedAt) - Date.parse(doc.entries[lastSealed].entry.occurredAt)) / 1000 > doc.sealMaxDelaySeconds) {
      problems.push(
        'as entradas ' +
          (lastSealed + 1) +
          ' a ' +
          last.seq +
          ' passaram do prazo de selagem (' +
          doc.sealMaxDelaySeconds +
          ' s) sem selo que as cubra: o selo que as cobria foi removido, com as entradas seguintes',
      );
    }
    var lines = [doc.entries.length + ' entradas, ' + seals + ' selos e a cabeça da exportação conferidos com as chaves publicadas.'].concat(problems);
    lines.push(
      'Carimbos do tempo: aqui se confere que cada um cobre o seu selo e se lê a sua hora; a assinatura da autoridade de carimbo do tempo e a cadeia até a sua raiz são verificadas pelo verificador offline (scripts/verify-trail.ts com --tsa-ca).',
    );
    show(problems.length === 0, lines.concat(times.slice(0, MAX_SEAL_LINES), times.length > MAX_SEAL_LINES ? ['… e mais ' + (times.length - MAX_SEAL_LINES) + ' selos.'] : []));
  }
  button.addEventListener('click', function () {
    button.disabled = true;
    verify()
      .catch(function (error) {
        show(false, [String(error)]);
      })
      .finally(function () {
        button.disabled = false;
      });
  });
})();
