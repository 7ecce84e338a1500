#pragma once
#include <aubio/aubio.h>
