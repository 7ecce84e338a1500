// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <sqlite3.h>

/// `sqlite3_db_config` for an option that takes an int and reports the setting it leaves (`SQLITE_DBCONFIG_DEFENSIVE`,
/// `…_TRUSTED_SCHEMA`, `…_ENABLE_LOAD_EXTENSION`, `…_ENABLE_TRIGGER`, `…_ENABLE_VIEW`): the function is variadic,
/// which Swift cannot call. `value` -1 leaves the setting as it is and only reads it.
static inline int csqlite_db_config_int(sqlite3 *db, int option, int value, int *setting) {
    return sqlite3_db_config(db, option, value, setting);
}
