import type { Services } from '../services';
import type { OperationHandlers } from '../lib/http/operations';
import { actingBrand } from '../brands/acting-brand';

/** The agent pin operations of the registry (confirm-pin, the reservation, lives with the signup flow). */
export function pinsRoutes(s: Services): OperationHandlers {
  return {
    async resolvePin(req, res) {
      await actingBrand(req, s.brands.lookup);
      res.json(await s.pins.resolve(String(req.query.pin_id)));
    },
    async searchPins(req, res) {
      await actingBrand(req, s.brands.lookup);
      res.json(await s.pins.search(req.body as Record<string, unknown>));
    },
    async previewPin(req, res) {
      await actingBrand(req, s.brands.lookup);
      res.json(await s.pins.preview(req.body));
    },
  };
}
