// otp_codes.service_type: what carried a one-time code, 'sms' (send_otp) or 'whatsapp' (send-otp-whatsapp);
// validate_otp checks the code of the service_type it names (sms when it names none).
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('otp_codes')
    .addColumn('service_type', 'text', (c) => c.notNull().defaultTo('sms'))
    .execute();
}
