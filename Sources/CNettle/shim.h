#pragma once
#include <nettle/sha2.h>
