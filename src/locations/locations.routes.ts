import { AppError } from '../lib/errors';
import type { OperationHandlers } from '../lib/http/operations';
import { listCountries, listRegions } from './dataset';

/** Reference data for maps-scrape jobs: the same for every client. */
export function locationsRoutes(): OperationHandlers {
  return {
    listCountries(_req, res) {
      const countries = listCountries();
      res.json({ countries, total: countries.length });
    },
    listRegions(req, res) {
      const countryCode = req.query.country_code;
      const regions = listRegions(countryCode);
      if (!regions) throw AppError.notFound('Country not found');
      res.json({ country_code: countryCode, regions, total: regions.length });
    },
  };
}
