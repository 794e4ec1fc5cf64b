-- OpenCode 1.14.34's store: its schema and the migrations it records (no rows of a session).
CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (
				id INTEGER PRIMARY KEY,
				hash text NOT NULL,
				created_at numeric,
				name text,
				applied_at TEXT
			);
CREATE TABLE `project` (
	`id` text PRIMARY KEY,
	`worktree` text NOT NULL,
	`vcs` text,
	`name` text,
	`icon_url` text,
	`icon_color` text,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`time_initialized` integer,
	`sandboxes` text NOT NULL
, `commands` text, `icon_url_override` text);
CREATE TABLE `message` (
	`id` text PRIMARY KEY,
	`session_id` text NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`data` text NOT NULL,
	CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);
CREATE TABLE `part` (
	`id` text PRIMARY KEY,
	`message_id` text NOT NULL,
	`session_id` text NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`data` text NOT NULL,
	CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE
);
CREATE TABLE `permission` (
	`project_id` text PRIMARY KEY,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`data` text NOT NULL,
	CONSTRAINT `fk_permission_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
);
CREATE TABLE `session` (
	`id` text PRIMARY KEY,
	`project_id` text NOT NULL,
	`parent_id` text,
	`slug` text NOT NULL,
	`directory` text NOT NULL,
	`title` text NOT NULL,
	`version` text NOT NULL,
	`share_url` text,
	`summary_additions` integer,
	`summary_deletions` integer,
	`summary_files` integer,
	`summary_diffs` text,
	`revert` text,
	`permission` text,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`time_compacting` integer,
	`time_archived` integer, `workspace_id` text, `path` text, `agent` text, `model` text,
	CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
);
CREATE TABLE `todo` (
	`session_id` text NOT NULL,
	`content` text NOT NULL,
	`status` text NOT NULL,
	`priority` text NOT NULL,
	`position` integer NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	CONSTRAINT `todo_pk` PRIMARY KEY(`session_id`, `position`),
	CONSTRAINT `fk_todo_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);
CREATE TABLE `session_share` (
	`session_id` text PRIMARY KEY,
	`id` text NOT NULL,
	`secret` text NOT NULL,
	`url` text NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	CONSTRAINT `fk_session_share_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
CREATE INDEX `session_project_idx` ON `session` (`project_id`);
CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);
CREATE INDEX `todo_session_idx` ON `todo` (`session_id`);
CREATE TABLE `control_account` (
	`email` text NOT NULL,
	`url` text NOT NULL,
	`access_token` text NOT NULL,
	`refresh_token` text NOT NULL,
	`token_expiry` integer,
	`active` integer NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	CONSTRAINT `control_account_pk` PRIMARY KEY(`email`, `url`)
);
CREATE INDEX `session_workspace_idx` ON `session` (`workspace_id`);
CREATE TABLE `account` (
	`id` text PRIMARY KEY,
	`email` text NOT NULL,
	`url` text NOT NULL,
	`access_token` text NOT NULL,
	`refresh_token` text NOT NULL,
	`token_expiry` integer,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL
);
CREATE TABLE `account_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`active_account_id` text, `active_org_id` text,
	FOREIGN KEY (`active_account_id`) REFERENCES `account`(`id`) ON UPDATE no action ON DELETE set null
);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE TABLE `event_sequence` (
	`aggregate_id` text PRIMARY KEY,
	`seq` integer NOT NULL
);
CREATE TABLE `event` (
	`id` text PRIMARY KEY,
	`aggregate_id` text NOT NULL,
	`seq` integer NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	CONSTRAINT `fk_event_aggregate_id_event_sequence_aggregate_id_fk` FOREIGN KEY (`aggregate_id`) REFERENCES `event_sequence`(`aggregate_id`) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS "workspace" (
	`id` text PRIMARY KEY,
	`type` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`branch` text,
	`directory` text,
	`extra` text,
	`project_id` text NOT NULL,
	CONSTRAINT `fk_workspace_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
);
CREATE TABLE `session_message` (
	`id` text PRIMARY KEY,
	`session_id` text NOT NULL,
	`type` text NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`data` text NOT NULL,
	CONSTRAINT `fk_session_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);
CREATE INDEX `session_message_session_idx` ON `session_message` (`session_id`);
CREATE INDEX `session_message_session_type_idx` ON `session_message` (`session_id`,`type`);
CREATE INDEX `session_message_time_created_idx` ON `session_message` (`time_created`);
INSERT INTO __drizzle_migrations VALUES(1,'',1769552633000,'20260127222353_familiar_lady_ursula','2026-12-07T12:14:19.951Z');
INSERT INTO __drizzle_migrations VALUES(2,'',1770830228000,'20260211171708_add_project_commands','2026-12-07T12:14:19.952Z');
INSERT INTO __drizzle_migrations VALUES(3,'',1770993676000,'20260213144116_wakeful_the_professor','2026-12-07T12:14:19.961Z');
INSERT INTO __drizzle_migrations VALUES(4,'',1772056728000,'20260225215848_workspace','2026-12-07T12:14:19.961Z');
INSERT INTO __drizzle_migrations VALUES(5,'',1772228279000,'20260227213759_add_session_workspace_id','2026-12-07T12:14:19.961Z');
INSERT INTO __drizzle_migrations VALUES(6,'',1772310750000,'20260228203230_blue_harpoon','2026-12-07T12:14:19.961Z');
INSERT INTO __drizzle_migrations VALUES(7,'',1772579546000,'20260303231226_add_workspace_fields','2026-12-07T12:14:19.962Z');
INSERT INTO __drizzle_migrations VALUES(8,'',1773097200000,'20260309230000_move_org_to_state','2026-12-07T12:14:19.963Z');
INSERT INTO __drizzle_migrations VALUES(9,'',1773290071000,'20260312043431_session_message_cursor','2026-12-07T12:14:19.963Z');
INSERT INTO __drizzle_migrations VALUES(10,'',1774309702000,'20260323234822_events','2026-12-07T12:14:19.963Z');
INSERT INTO __drizzle_migrations VALUES(11,'',1775843113000,'20260410174513_workspace-name','2026-12-07T12:14:19.964Z');
INSERT INTO __drizzle_migrations VALUES(12,'',1776103196000,'20260413175956_chief_energizer','2026-12-07T12:14:19.977Z');
INSERT INTO __drizzle_migrations VALUES(13,'',1776928100000,'20260423070820_add_icon_url_override','2026-12-07T12:14:19.977Z');
INSERT INTO __drizzle_migrations VALUES(14,'',1777310753000,'20260427172553_slow_nightmare','2026-12-07T12:14:19.977Z');
INSERT INTO __drizzle_migrations VALUES(15,'',1777336920000,'20260428004200_add_session_path','2026-12-07T12:14:19.978Z');
INSERT INTO __drizzle_migrations VALUES(16,'',1777645398000,'20260501142318_next_venus','2026-12-07T12:14:19.978Z');
