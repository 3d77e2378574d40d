package dev.loopflow.core.event;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * {@link Instant#toString()}'s text (ISO-8601 in UTC: {@code 2026-11-24T12:18:27.123Z}, the fraction in groups of
 * three digits and left out when zero), written without the general date-time formatter, which was a visible part of
 * journaling an event. Every event carries its time, and most events of a run fall in the same second, so the text
 * of the last second written is kept and only the fraction is written anew.
 *
 * <p>What must stay true: the text is exactly {@code Instant.toString()}'s, for every instant; years outside
 * 0000–9999 (signed or five-digit years) are handed to {@code Instant.toString()} itself. InstantTextTest compares
 * the two over a generated corpus.
 */
public final class InstantText {
  /** 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the years written with exactly four digits and no sign. */
  private static final long FIRST = -62_167_219_200L;
  private static final long END = 253_402_300_800L;
  private static final int SECOND_LENGTH = 19; // yyyy-MM-ddTHH:mm:ss

  /** The last second written and its text; immutable, so it is shared between threads without a lock. */
  private record Second(long epochSecond, byte[] text) {}

  private static volatile Second last = new Second(0, second(0));

  private InstantText() {}

  /** {@code at.toString()}. */
  public static String of(Instant at) {
    long s = at.getEpochSecond();
    if (s < FIRST || s >= END) {
      return at.toString();
    }
    Second sec = last;
    if (sec.epochSecond != s) {
      sec = new Second(s, second(s));
      last = sec;
    }
    int nano = at.getNano();
    int digits = nano == 0 ? 0 : nano % 1_000_000 == 0 ? 3 : nano % 1_000 == 0 ? 6 : 9;
    byte[] out = new byte[SECOND_LENGTH + (digits == 0 ? 0 : digits + 1) + 1];
    System.arraycopy(sec.text, 0, out, 0, SECOND_LENGTH);
    int i = SECOND_LENGTH;
    if (digits > 0) {
      out[i++] = '.';
      int fraction = digits == 3 ? nano / 1_000_000 : digits == 6 ? nano / 1_000 : nano;
      for (int k = i + digits - 1; k >= i; k--) {
        out[k] = (byte) ('0' + fraction % 10);
        fraction /= 10;
      }
      i += digits;
    }
    out[i] = 'Z';
    return new String(out, StandardCharsets.ISO_8859_1);
  }

  /**
   * {@code Instant.parse(text)}, without the general date-time parser for the text {@link #of} writes (reading a run
   * back parses the time of each of its events and of its record). A four-digit year, a valid date, hours 00–23,
   * minutes and seconds 00–59, an optional fraction of one to nine digits, then {@code Z}: anything else (other
   * offsets, a leap second, signed years, damage) goes to {@code Instant.parse} itself, which accepts it the same way
   * or throws its own {@link java.time.format.DateTimeParseException}. InstantTextTest compares the two.
   */
  public static Instant parse(CharSequence text) {
    int n = text.length();
    if (n < SECOND_LENGTH + 1 || n > SECOND_LENGTH + 11 || text.charAt(n - 1) != 'Z' || text.charAt(4) != '-'
        || text.charAt(7) != '-' || text.charAt(10) != 'T' || text.charAt(13) != ':' || text.charAt(16) != ':') {
      return Instant.parse(text);
    }
    int year = number(text, 0, 4);
    int month = number(text, 5, 2);
    int day = number(text, 8, 2);
    int hour = number(text, 11, 2);
    int minute = number(text, 14, 2);
    int second = number(text, 17, 2);
    if (year < 0 || month < 1 || month > 12 || day < 1 || day > monthLength(year, month) || hour < 0 || hour > 23
        || minute < 0 || minute > 59 || second < 0 || second > 59) {
      return Instant.parse(text);
    }
    int nano = 0;
    if (n > SECOND_LENGTH + 1) {
      int digits = n - SECOND_LENGTH - 2;
      if (text.charAt(SECOND_LENGTH) != '.' || digits < 1) {
        return Instant.parse(text);
      }
      int fraction = number(text, SECOND_LENGTH + 1, digits);
      if (fraction < 0) {
        return Instant.parse(text);
      }
      nano = fraction;
      for (int k = digits; k < 9; k++) {
        nano *= 10;
      }
    }
    return Instant.ofEpochSecond(epochDay(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second, nano);
  }

  /** The decimal number in {@code width} (at most 9) characters from {@code at}; -1 when one is not a digit. */
  private static int number(CharSequence text, int at, int width) {
    int v = 0;
    for (int i = at; i < at + width; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  private static int monthLength(int year, int month) {
    return switch (month) {
      case 2 -> (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
      case 4, 6, 9, 11 -> 30;
      default -> 31;
    };
  }

  /** Days from 1970-01-01 to a civil date (proleptic Gregorian): the inverse of what {@link #second} does. */
  private static long epochDay(int year, int month, int day) {
    int y = month <= 2 ? year - 1 : year;
    long era = Math.floorDiv(y, 400);
    int yearOfEra = (int) (y - era * 400);
    int dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    int dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146_097 + dayOfEra - 719_468;
  }

  /** Whether the text of this epoch second is the one kept. */
  static boolean remembers(long epochSecond) {
    return last.epochSecond == epochSecond;
  }

  /** {@code yyyy-MM-ddTHH:mm:ss} of an epoch second between {@link #FIRST} and {@link #END}. */
  private static byte[] second(long epochSecond) {
    long days = Math.floorDiv(epochSecond, 86_400);
    int secondOfDay = (int) Math.floorMod(epochSecond, 86_400);
    // Days to a civil date (proleptic Gregorian), counting eras of 400 years from 0000-03-01.
    long z = days + 719_468;
    long era = Math.floorDiv(z, 146_097);
    int dayOfEra = (int) (z - era * 146_097);
    int yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
    int dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    int mp = (5 * dayOfYear + 2) / 153;
    int day = dayOfYear - (153 * mp + 2) / 5 + 1;
    int month = mp < 10 ? mp + 3 : mp - 9;
    int year = (int) (yearOfEra + era * 400) + (month <= 2 ? 1 : 0);
    byte[] t = new byte[SECOND_LENGTH];
    digits(t, 0, year, 4);
    t[4] = '-';
    digits(t, 5, month, 2);
    t[7] = '-';
    digits(t, 8, day, 2);
    t[10] = 'T';
    digits(t, 11, secondOfDay / 3_600, 2);
    t[13] = ':';
    digits(t, 14, secondOfDay / 60 % 60, 2);
    t[16] = ':';
    digits(t, 17, secondOfDay % 60, 2);
    return t;
  }

  private static void digits(byte[] t, int at, int value, int width) {
    for (int k = at + width - 1; k >= at; k--) {
      t[k] = (byte) ('0' + value % 10);
      value /= 10;
    }
  }
}
