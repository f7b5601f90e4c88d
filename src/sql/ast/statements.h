// Every statement kind, for code that handles all of them.
#pragma once

#include "sql/ast/create_catalog_statement.h"
#include "sql/ast/create_database_statement.h"
#include "sql/ast/create_function_statement.h"
#include "sql/ast/create_materialized_view_statement.h"
#include "sql/ast/create_table_statement.h"
#include "sql/ast/create_trigger_statement.h"
#include "sql/ast/create_view_statement.h"
#include "sql/ast/drop_statement.h"
#include "sql/ast/fire_statement.h"
#include "sql/ast/insert_statement.h"
#include "sql/ast/pause_statement.h"
#include "sql/ast/query_statement.h"
#include "sql/ast/delete_statement.h"
#include "sql/ast/refresh_statement.h"
#include "sql/ast/set_statement.h"
#include "sql/ast/show_statement.h"
