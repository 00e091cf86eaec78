import type { TemplateCatalog } from './catalog.ts';

export const de: TemplateCatalog = {
  verification: {
    subject: 'Ihr Bestätigungscode',
    text: 'Ihr Bestätigungscode lautet {code}. Er läuft in 10 Minuten ab. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese Nachricht.',
  },
  account_exists: {
    subject: 'Ihr Bestätigungscode',
    text: 'Jemand wollte mit dieser E-Mail-Adresse ein Konto erstellen, aber Sie haben bereits eines. Melden Sie sich an oder setzen Sie Ihr Passwort zurück. Wenn Sie es nicht waren, ignorieren Sie diese Nachricht.',
  },
  magic_link: {
    subject: 'Ihr Anmeldecode',
    text: 'Ihr Anmeldecode lautet {code}. Oder öffnen Sie diesen Link in dem Browser, in dem Sie sich anmelden: {link}. Beide funktionieren einmal und 10 Minuten lang. Falls Sie sich nicht anmelden wollten, ignorieren Sie diese Nachricht.',
  },
  one_time_code: {
    subject: 'Ihr Bestätigungscode',
    text: 'Ihr Bestätigungscode lautet {code}. Geben Sie ihn auf der Anmeldeseite ein, um die Anmeldung abzuschließen: Er funktioniert einmal und 10 Minuten lang. Falls Sie sich gerade nicht anmelden, kennt möglicherweise jemand Ihr Passwort: Ändern Sie es.',
  },
  password_reset: {
    subject: 'Passwort zurücksetzen',
    text: 'Öffnen Sie diesen Link, um ein neues Passwort zu wählen: {link}. Er kann einmal verwendet werden. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese Nachricht.',
  },
  invitation: {
    subject: 'Einladung zu {organization}',
    text: 'Sie sind eingeladen, {organization} beizutreten. Melden Sie sich an und nehmen Sie die Einladung vor {expiresAt} mit dem Code {code} an. Wenn Sie diese Einladung nicht erwartet haben, ignorieren Sie diese Nachricht.',
  },
  elevate_notice: {
    subject: 'Zugriffsanfrage von {requester}',
    text: '{requester} bittet um {access}: „{reason}“. Genehmigen oder lehnen Sie die Anfrage vor {expiresAt} ab.',
  },
  sms_code: {
    subject: '',
    text: '{code} ist Ihr Bestätigungscode. Er gilt einmal, 10 Minuten lang. Geben Sie ihn niemals weiter.',
  },
};
