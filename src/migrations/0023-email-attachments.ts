// Attachments of e-mail sends (issue 16): the organisation's response-file documents a
// message carries, in the order given. Each row keeps what the document was when the send
// was recorded (name, type, size, object key): a document detached from its response file
// afterwards is still sent as asked; one whose bytes left the store ends the message in échec.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('email_attachments', (t) => {
    t.string('email_id', 36).notNullable().references('id').inTable('email_messages').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.string('response_file_id', 36).notNullable();
    t.string('document_id', 36).notNullable();
    t.string('filename', 200).notNullable();
    t.string('content_type', 120).notNullable();
    t.bigInteger('size').notNullable();
    t.string('object_key', 64).notNullable();
    t.primary(['email_id', 'position']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('email_attachments');
}
