/*
 * db_query's one look inside PDO: the sqlite3 connection handle behind a PDO object, so the
 * tool can put its time, size and read-only budget on the site's own connection.
 *
 * Compiled by build.rs against the headers of the PHP being built for (php-config
 * --includes), so pdo_dbh_object_t, pdo_dbh_t and pdo_driver_t come from that PHP's
 * ext/pdo/php_pdo_driver.h (NTS or ZTS, any API version), never from offsets written by hand.
 * Uses only inline helpers and struct fields: no symbol of pdo.so is linked, so loading
 * phpclaw never depends on PDO being loaded first.
 */
#include "php.h"
#include "ext/pdo/php_pdo_driver.h"

/*
 * The start of pdo_sqlite's pdo_sqlite_db_handle (ext/pdo_sqlite/php_pdo_sqlite_int.h, which
 * PHP does not install with its headers): its first field has been `sqlite3 *db;` since
 * pdo_sqlite was written (PHP 5.1) and still is in PHP 8.4. Only that field is read.
 */
typedef struct {
	void *db;
} phpclaw_pdo_sqlite_db_handle_head;

/*
 * The sqlite3* of `obj`, which the caller has checked is an instance of PDO (or a subclass:
 * they all use PDO's own object layout), or NULL when the object has no live connection or
 * its driver is not "sqlite".
 */
void *phpclaw_pdo_sqlite_db(zend_object *obj)
{
	pdo_dbh_t *dbh;

	if (obj == NULL) {
		return NULL;
	}
	dbh = php_pdo_dbh_fetch_inner(obj);
	if (dbh == NULL || dbh->driver == NULL || dbh->driver_data == NULL) {
		return NULL;
	}
	if (dbh->driver->driver_name_len != sizeof("sqlite") - 1
		|| memcmp(dbh->driver->driver_name, "sqlite", sizeof("sqlite") - 1) != 0) {
		return NULL;
	}
	return ((phpclaw_pdo_sqlite_db_handle_head *) dbh->driver_data)->db;
}
