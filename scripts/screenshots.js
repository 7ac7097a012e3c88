// The page kaleido's headless Chromium runs for scripts/screenshots.py: it takes the place
// of kaleido's js/kaleido_scopes.js, and its `plotly` scope (the one the executable calls
// for each JSON request on its stdin) photographs a page instead of drawing a plot.
//
// A request is {width, height, scale, data: {url, settle_ms, clicks}}: the page is opened in
// an iframe of width x height CSS pixels, its scripts run, each of `clicks` (a CSS selector, or
// "text=..." for the first link or button whose text is that) is clicked in turn, and the
// frame as it then stands is drawn to a canvas: its DOM serialized as XHTML inside an SVG
// <foreignObject>, with its style sheets inlined and every image, font and style-sheet URL
// turned into a data: URL (an SVG drawn as an image loads nothing itself), the way
// html-to-image libraries do it. The answer's `result` is the PNG, base64-encoded.
(function () {
  'use strict';

  function wait(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  const dataUrls = new Map();

  // The file at url as a data: URL (XHR: fetch() refuses file: URLs), or null where it
  // cannot be read.
  function dataUrl(url) {
    if (url.startsWith('data:')) return Promise.resolve(url);
    if (!dataUrls.has(url)) {
      dataUrls.set(url, new Promise((resolve) => {
        const xhr = new XMLHttpRequest();
        xhr.open('GET', url);
        xhr.responseType = 'blob';
        xhr.onload = () => {
          const reader = new FileReader();
          reader.onload = () => resolve(reader.result);
          reader.onerror = () => resolve(null);
          reader.readAsDataURL(xhr.response);
        };
        xhr.onerror = () => resolve(null);
        xhr.send();
      }));
    }
    return dataUrls.get(url);
  }

  // css with every url(...) in it, relative to base, replaced by its data: URL.
  async function inlineUrls(css, base) {
    const pattern = /url\(\s*(['"]?)([^'")]+)\1\s*\)/g;
    const urls = new Set();
    for (const m of css.matchAll(pattern)) {
      if (!m[2].startsWith('data:') && !m[2].startsWith('#')) urls.add(m[2]);
    }
    const found = new Map();
    for (const u of urls) found.set(u, await dataUrl(new URL(u, base).href));
    return css.replace(pattern, (all, q, u) => (found.get(u) ? `url("${found.get(u)}")` : all));
  }

  // The text of every style sheet of doc, @import-ed ones first, with its URLs inlined and
  // `:root` written `html` (inside a <foreignObject> the page's <html> is not the root).
  async function styles(doc) {
    const out = [];
    async function sheet(s) {
      let rules;
      try {
        rules = s.cssRules;
      } catch (e) {
        return;
      }
      const text = [];
      for (const r of rules) {
        if (r.type === CSSRule.IMPORT_RULE) await sheet(r.styleSheet);
        else text.push(r.cssText);
      }
      const base = s.href || doc.baseURI;
      out.push(await inlineUrls(text.join('\n').replace(/:root\b/g, 'html'), base));
    }
    for (const s of doc.styleSheets) {
      if (!s.disabled) await sheet(s);
    }
    return out.join('\n');
  }

  // How far el's sticky position (the page being scrolled) moves it from its place.
  function stuck(el) {
    const at = el.getBoundingClientRect().top;
    const kept = el.style.getPropertyValue('position');
    el.style.setProperty('position', 'static');
    const moved = at - el.getBoundingClientRect().top;
    el.style.setProperty('position', kept);
    return moved;
  }

  // A copy of doc's <html> as it stands: no scripts, form state and canvases as attributes,
  // every image a data: URL, a sticky element where the scrolled page holds it, every <link>
  // and <style> dropped (styles() holds them).
  async function snapshot(doc) {
    const root = doc.documentElement.cloneNode(true);
    const live = doc.documentElement.querySelectorAll('*');
    const copy = root.querySelectorAll('*');
    const pending = [];
    const scrolled = new Map(); // a scrolled box's children: how far it scrolled them
    for (let i = 0; i < live.length; i++) {
      const a = live[i];
      const b = copy[i];
      const tag = a.tagName.toLowerCase();
      if (tag === 'input') {
        if (a.checked) b.setAttribute('checked', '');
        else b.removeAttribute('checked');
        b.setAttribute('value', a.value);
      } else if (tag === 'canvas') {
        const img = doc.createElement('img');
        img.setAttribute('src', a.toDataURL());
        img.setAttribute('style', `width:${a.clientWidth}px;height:${a.clientHeight}px`);
        b.replaceWith(img);
      } else if (tag === 'img' && a.currentSrc) {
        b.removeAttribute('srcset');
        b.removeAttribute('loading');
        pending.push(dataUrl(a.currentSrc).then((u) => u && b.setAttribute('src', u)));
      } else if (tag === 'image' && a.href && a.href.baseVal) {
        const u = new URL(a.href.baseVal, doc.baseURI).href;
        pending.push(dataUrl(u).then((d) => d && b.setAttribute('href', d)));
      }
      // moved: by a scrolled parent, whose copy cannot scroll, and by being sticky
      // (an absolute or fixed box keeps its place)
      const cs = doc.defaultView.getComputedStyle(a);
      let moved = scrolled.get(b) || 0;
      if (cs.position === 'sticky') moved += stuck(a);
      if (cs.position === 'relative') moved += parseFloat(cs.top) || 0;
      for (const child of b.children) scrolled.set(child, -a.scrollTop);
      let style = a.getAttribute('style') || '';
      if (moved && ['static', 'relative', 'sticky'].includes(cs.position)) {
        style += `;position:relative;top:${moved}px`;
      }
      if (style) {
        pending.push(inlineUrls(style, doc.baseURI).then((s) => b.setAttribute('style', s)));
      }
    }
    await Promise.all(pending);
    for (const el of root.querySelectorAll('script, link, style, noscript')) el.remove();
    return root;
  }

  // The iframe's page drawn into a canvas of its size times scale.
  async function draw(frame, width, height, scale) {
    const doc = frame.contentDocument;
    const css = await styles(doc);
    const root = await snapshot(doc);
    const style = doc.createElement('style');
    // an image's clock stands still: a transition it starts would never end
    style.textContent = css + '\n*, *::before, *::after { transition: none !important; ' +
      'animation: none !important; }';
    root.querySelector('head').appendChild(style);
    // the whole page is drawn, at the width its scroll bar leaves, and the window cut from it
    const scrollY = frame.contentWindow.scrollY;
    const full = doc.documentElement.scrollHeight;
    root.setAttribute('style', `${root.getAttribute('style') || ''};overflow:hidden;` +
      `width:${doc.documentElement.clientWidth}px;height:${full}px`);
    const xhtml = new XMLSerializer().serializeToString(root);
    // rem units are of the root's font size, and the root here is the <svg>
    const rem = doc.defaultView.getComputedStyle(doc.documentElement).fontSize;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${full}" ` +
      `style="font-size:${rem}">` +
      `<foreignObject x="0" y="0" width="100%" height="100%">${xhtml}</foreignObject></svg>`;
    const img = new Image();
    await new Promise((resolve, reject) => {
      img.onload = resolve;
      img.onerror = () => reject(new Error('the page did not draw as an SVG image'));
      img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg);
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const g = canvas.getContext('2d');
    g.fillStyle = getComputedStyle(doc.body).backgroundColor === 'rgba(0, 0, 0, 0)'
      ? '#ffffff' : getComputedStyle(doc.body).backgroundColor;
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.scale(scale, scale);
    g.drawImage(img, 0, scrollY, width, height, 0, 0, width, height);
    return canvas.toDataURL('image/png').split(',')[1];
  }

  // An iframe of width x height showing url, once it has loaded.
  function open(url, width, height) {
    return new Promise((resolve) => {
      const frame = document.createElement('iframe');
      frame.style.cssText = `position:absolute;left:0;top:0;border:0;` +
        `width:${width}px;height:${height}px`;
      frame.onload = () => resolve(frame);
      frame.src = url;
      document.body.appendChild(frame);
    });
  }

  // The element a click names: a CSS selector, or "text=..." for the first <a> or <button>
  // whose trimmed text is that.
  function target(doc, click) {
    if (click.startsWith('text=')) {
      const text = click.slice(5);
      return Array.from(doc.querySelectorAll('a, button, summary, [role=button]'))
        .find((el) => el.textContent.trim() === text) || null;
    }
    return doc.querySelector(click);
  }

  // The PNG (base64) of the request's page, its fragment scrolled to and its clicks made.
  async function photograph(info) {
    const req = info.data;
    const width = info.width;
    const height = info.height;
    const frame = await open(req.url, width, height);
    try {
      const doc = frame.contentDocument;
      if (!doc || !doc.URL.startsWith('file:') && !doc.URL.startsWith('http')) {
        throw new Error('the page did not open');
      }
      await doc.fonts.ready;
      await wait(req.settle_ms);
      // the page's layout settles after the browser scrolled to the URL's #fragment
      const hash = decodeURIComponent(new URL(req.url).hash.slice(1));
      if (hash) {
        const el = frame.contentDocument.getElementById(hash);
        if (!el) throw new Error(`nothing on the page has the id ${JSON.stringify(hash)}`);
        el.scrollIntoView();
      }
      for (const click of req.clicks || []) {
        const el = target(frame.contentDocument, click);
        if (!el) throw new Error(`nothing to click matches ${JSON.stringify(click)}`);
        el.click();
        await wait(req.settle_ms);
      }
      return await draw(frame, width, height, info.scale);
    } finally {
      frame.remove();
    }
  }

  function render(info) {
    const answer = {code: 0, message: null, format: 'png', result: null,
      width: info.width, height: info.height, scale: info.scale};
    return photograph(info).then(
      (png) => Object.assign(answer, {result: png}),
      (err) => Object.assign(answer, {code: 530, message: String(err && err.message || err)}));
  }

  window.kaleido_scopes = {plotly: render};
})();
