#pragma once
#include <sonic.h>
