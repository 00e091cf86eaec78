import type { TemplateCatalog } from './catalog.ts';

export const fr: TemplateCatalog = {
  verification: {
    subject: 'Votre code de vérification',
    text: 'Votre code de vérification est {code}. Il expire dans 10 minutes. Si vous ne l’avez pas demandé, ignorez ce message.',
  },
  account_exists: {
    subject: 'Votre code de vérification',
    text: 'Quelqu’un a voulu créer un compte avec cette adresse e-mail, mais vous en avez déjà un. Connectez-vous ou réinitialisez votre mot de passe. Si ce n’était pas vous, ignorez ce message.',
  },
  magic_link: {
    subject: 'Votre code de connexion',
    text: 'Votre code de connexion est {code}. Vous pouvez aussi ouvrir ce lien dans le navigateur où vous vous connectez : {link}. Les deux fonctionnent une seule fois, pendant 10 minutes. Si vous n’avez pas essayé de vous connecter, ignorez ce message.',
  },
  one_time_code: {
    subject: 'Votre code de vérification',
    text: 'Votre code de vérification est {code}. Saisissez-le sur la page de connexion pour terminer la connexion : il fonctionne une seule fois, pendant 10 minutes. Si vous n’êtes pas en train de vous connecter, quelqu’un connaît peut-être votre mot de passe : changez-le.',
  },
  password_reset: {
    subject: 'Réinitialiser votre mot de passe',
    text: 'Ouvrez ce lien pour choisir un nouveau mot de passe : {link}. Il ne peut servir qu’une fois. Si vous ne l’avez pas demandé, ignorez ce message.',
  },
  invitation: {
    subject: 'Invitation à rejoindre {organization}',
    text: 'Vous êtes invité à rejoindre {organization}. Connectez-vous et acceptez l’invitation avec le code {code} avant le {expiresAt}. Si vous n’attendiez pas cette invitation, ignorez ce message.',
  },
  elevate_notice: {
    subject: 'Demande d’accès de {requester}',
    text: '{requester} demande {access} : « {reason} ». Approuvez ou refusez la demande avant le {expiresAt}.',
  },
  sms_code: {
    subject: '',
    text: '{code} est votre code de vérification. Il est valable une fois, pendant 10 minutes. Ne le communiquez jamais.',
  },
};
