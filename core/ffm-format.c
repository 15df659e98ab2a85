/* ffm-format.c: numbers for people (ffm-format.h). */
#include <ffm/ffm-format.h>
#include <ffm/ffm-limits.h>

#include <math.h>
#include <string.h>

char *
ffm_format_si (double value, const char *unit)
{
  static const char *const prefixes[] = { "a", "f", "p", "n", "u", "m", "",
                                          "k", "M", "G", "T", "P", "E" };
  double a = fabs (value);
  int p = 6;
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  if (unit == NULL)
    unit = "";
  if (value == 0 || !isfinite (value))
    return g_strdup_printf ("%s %s", value == 0 ? "0"
                            : isnan (value) ? "nan" : value > 0 ? "inf" : "-inf",
                            unit);
  while (a >= 1000 && p < (int) G_N_ELEMENTS (prefixes) - 1)
    {
      a /= 1000;
      value /= 1000;
      p++;
    }
  while (a < 1 && p > 0)
    {
      a *= 1000;
      value *= 1000;
      p--;
    }
  /* 999.96 rounds to "1000" at four digits: move to the next prefix. */
  if (fabs (value) >= 999.95 && p < (int) G_N_ELEMENTS (prefixes) - 1)
    {
      value /= 1000;
      p++;
    }
  g_ascii_formatd (number, sizeof number, "%.4g", value);
  if (p == 6 && unit[0] == '\0')
    return g_strdup (number);
  return g_strdup_printf ("%s %s%s", number, prefixes[p], unit);
}

char *
ffm_format_area (double square_metres)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (number, sizeof number, "%.4g", square_metres * 1e6);
  return g_strdup_printf ("%s mm^2", number);
}

char *
ffm_format_bytes (guint64 bytes)
{
  static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  double value = (double) bytes;
  guint u = 0;

  if (bytes < 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  value /= 1024;
  while (value >= 1024 && u + 1 < G_N_ELEMENTS (units))
    {
      value /= 1024;
      u++;
    }
  return g_strdup_printf ("%.1f %s", value, units[u]);
}

char *
ffm_format_count (guint64 count)
{
  char digits[32];
  GString *out = g_string_sized_new (32);
  gsize len;

  g_snprintf (digits, sizeof digits, "%" G_GUINT64_FORMAT, count);
  len = strlen (digits);
  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

char *
ffm_format_amount (double amount)
{
  if (amount >= 0 && amount < FFM_MAX_EXACT_INTEGER && amount == floor (amount))
    return ffm_format_count ((guint64) amount);
  return ffm_format_si (amount, "");
}
