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
