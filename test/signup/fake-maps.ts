import type { HTTPRequest, Page } from 'puppeteer-core';

/**
 * A stand-in for the browser maps script (Map, Marker, LatLng and the callback), so the signup page's map
 * runs without the network. `window.__fakeMap.click(lat, lng)` is a person clicking the map.
 */
const FAKE_MAPS_SCRIPT = `(() => {
  class LatLng {
    constructor(lat, lng) { this.a = lat; this.b = lng; }
    lat() { return this.a; }
    lng() { return this.b; }
  }
  class Marker {
    constructor(o) { this.position = o.position; this.listeners = {}; }
    addListener(event, fn) { this.listeners[event] = fn; }
    setPosition(p) { this.position = p; }
    getPosition() { return this.position; }
  }
  class Map {
    constructor(el) {
      this.listeners = {};
      el.dataset.fakeMap = 'ready';
      window.__fakeMap = { click: (lat, lng) => this.listeners.click({ latLng: new LatLng(lat, lng) }) };
    }
    addListener(event, fn) { this.listeners[event] = fn; }
  }
  window.google = { maps: { Map, Marker, LatLng } };
  window[new URL(document.currentScript.src).searchParams.get('callback')]();
})();`;

/**
 * Serves the page's own origin as usual, answers the maps script with the stand-in and refuses every other
 * request, so nothing leaves this machine. Returns the URLs asked for outside the origin.
 */
export async function withFakeMaps(page: Page, origin: string): Promise<string[]> {
  const elsewhere: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (req: HTTPRequest) => {
    const url = req.url();
    if (url.startsWith(origin)) return void req.continue();
    elsewhere.push(url);
    if (url.startsWith('https://maps.googleapis.com/maps/api/js?')) {
      return void req.respond({ status: 200, contentType: 'text/javascript', body: FAKE_MAPS_SCRIPT });
    }
    return void req.abort();
  });
  return elsewhere;
}
