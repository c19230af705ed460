import type { PinDoc } from '../pin.model';

/**
 * Where a claimed pin enters the pin search index. The search engines (built-in over MongoDB, which
 * reads the pins collection itself, or Meilisearch) are the pins area's; its `indexPin(pin)` is wired
 * here when the two areas meet (the coordinator's merge). Until then the built-in engine finds the pin
 * from MongoDB alone and nothing needs to happen.
 */
export async function indexClaimedPin(pin: PinDoc): Promise<void> {
  void pin;
}
