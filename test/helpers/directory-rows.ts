// Directory users and groups written with SQL, for tests of what only references them (RBAC assignments).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Id = z.object({ id: z.uuid() });

/** A user of the environment; its id. */
export const insertDirectoryUser = (db: CommonQueryMethods, environmentId: string, userName = `user-${crypto.randomUUID()}`) =>
  db.oneFirst(sql.type(Id)`INSERT INTO users (environment_id, user_name) VALUES (${environmentId}, ${userName}) RETURNING id`);

/** A group of the environment; its id. */
export const insertDirectoryGroup = (db: CommonQueryMethods, environmentId: string, name = `group-${crypto.randomUUID()}`) =>
  db.oneFirst(sql.type(Id)`INSERT INTO groups (environment_id, name) VALUES (${environmentId}, ${name}) RETURNING id`);
