import v8 from 'node:v8';
import vm from 'node:vm';
import { City, State } from 'country-state-city';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;
const heapUsed = () => {
  collect();
  return v8.getHeapStatistics().used_heap_size;
};

type Dataset = typeof import('../../src/locations/dataset');

describe('the place dataset', () => {
  // Loaded by the first test, after the heap is measured: the module is what is measured.
  let dataset: Dataset | undefined;
  const load = (): Dataset => {
    jest.isolateModules(() => {
      dataset = jest.requireActual<Dataset>('../../src/locations/dataset');
    });
    return dataset!;
  };

  it('indexed, holds a few MB of the heap, not the package’s ~150,000 city objects (~45 MB)', () => {
    const before = heapUsed();
    const loaded = load();
    expect(loaded.prepareLocations()).toBeGreaterThan(3000);
    expect(loaded.listCountries().length).toBeGreaterThan(200);
    const heldMb = (heapUsed() - before) / 1e6;
    // The packed index measures ~5 MB; the package's objects held 46 MB. The margin is for the test's own
    // module loading, not for the dataset.
    expect(heldMb).toBeLessThan(15);
  });

  it('answers the package’s cities, in its order, with their coordinates, for every region of a country', () => {
    const places = dataset ?? load();
    const cities = City.getAllCities();
    for (const country of ['LU', 'NL', 'US']) {
      const regions = State.getStatesOfCountry(country);
      for (const region of regions.slice(0, 12)) {
        const expected = cities
          .filter((c) => c.countryCode === country && c.stateCode === region.isoCode)
          .filter((c) => Number.isFinite(Number(c.latitude)) && Number.isFinite(Number(c.longitude)))
          .map((c) => ({ name: c.name, lat: Number(c.latitude), lng: Number(c.longitude) }));
        const got = places
          .expandLocations(country, [region.isoCode])
          .filter((l) => l.radius_m === 10_000)
          .map((l) => ({ name: l.name, lat: l.lat, lng: l.lng }));
        expect(got).toEqual(expected);
      }
      const counts = places.listRegions(country)!.map((r) => r.location_count);
      expect(counts).toEqual(
        regions.map((s) =>
          Math.max(1, cities.filter((c) => c.countryCode === country && c.stateCode === s.isoCode).length),
        ),
      );
    }
  });
});
