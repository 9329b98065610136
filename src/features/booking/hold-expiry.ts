import { DurableObject } from "cloudflare:workers";
import { bookingDeps } from "./deps";
import { expireHold } from "./hold";

type Hold = { reference: string; expiresAt: number };

/**
 * One per hold, named by its booking reference: its alarm, set at the hold's end, gives the rooms
 * back (expireHold) within seconds of it; a failure throws, and the platform runs the alarm again
 * with backoff. It keeps nothing once the hold has ended.
 */
export class HoldExpiry extends DurableObject<Env> {
  async schedule(reference: string, expiresAt: number): Promise<void> {
    await this.ctx.storage.put<Hold>("hold", { reference, expiresAt });
    await this.ctx.storage.setAlarm(expiresAt);
  }

  async alarm(): Promise<void> {
    const hold = await this.ctx.storage.get<Hold>("hold");
    if (!hold) return;
    // An alarm runs at or after its time: the hold has ended, whatever this machine's clock says.
    const outcome = await expireHold(bookingDeps(this.env), hold.reference, Math.max(Date.now(), hold.expiresAt));
    if (outcome === "not_yet") {
      await this.ctx.storage.setAlarm(Date.now() + 1_000);
      return;
    }
    await this.ctx.storage.deleteAll();
  }
}
